/**
 * Distributed mode: the datatables subgraph as its own process. Besides /graphql it serves the
 * plain-HTTP router all-in-one mounts (http/datatables-http.ts: row reads with ETag, CSV/xlsx
 * import, streamed CSV export); requests there are authenticated by the signed internal token, so
 * only the edge (which checked the API key) reaches them, as with content's media uploads.
 */
import { INTERNAL_TOKEN_HEADER } from '@pylon/kit';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { createDataTablesSubgraph } from './app.js';
import { createDataTablesHttp } from './http/datatables-http.js';

type DataTablesSubgraph = ReturnType<typeof createDataTablesSubgraph>;

await runSubgraphProcess({
  name: 'datatables',
  needs: ['documents', 'cache'],
  build: ({ backends, tokens }) => createDataTablesSubgraph({ documents: backends.documents!, cache: backends.cache!, tokens }),
  extend: (app, { tokens, subgraph }) => {
    app.use(
      createDataTablesHttp((subgraph as DataTablesSubgraph).runtime, {
        authenticate: (req) => tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null),
      }),
    );
  },
});
