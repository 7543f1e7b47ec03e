/** Distributed mode: the scheduling subgraph as its own process. */
import { runSubgraphProcess } from '@pylon/kit/composition/subgraph-process';
import { createSchedulingSubgraph } from './app.js';

await runSubgraphProcess({
  name: 'scheduling',
  needs: ['documents'],
  build: ({ backends, tokens }) => createSchedulingSubgraph({ documents: backends.documents!, tokens }),
});
