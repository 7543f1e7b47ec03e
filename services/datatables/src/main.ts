/** Distributed mode: the datatables subgraph as its own process. */
import { runSubgraphProcess } from '@pylon/kit/composition/subgraph-process';
import { createDataTablesSubgraph } from './app.js';

await runSubgraphProcess({
  name: 'datatables',
  needs: ['documents', 'cache'],
  build: ({ backends, tokens }) => createDataTablesSubgraph({ documents: backends.documents!, cache: backends.cache!, tokens }),
});
