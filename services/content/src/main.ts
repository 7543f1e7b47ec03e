/** Distributed mode: the content subgraph as its own process. */
import { runSubgraphProcess } from '@pylon/kit/composition/subgraph-process';
import { createContentSubgraph } from './app.js';

await runSubgraphProcess({
  name: 'content',
  needs: ['documents'],
  build: ({ backends, tokens }) => createContentSubgraph({ documents: backends.documents!, tokens }),
});
