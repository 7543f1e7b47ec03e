/** Distributed mode: the identity subgraph as its own process, plus the gateway's key check. */
import { envInt } from '@pylon/kit';
import { runSubgraphProcess } from '@pylon/kit/composition/subgraph-process';
import { createIdentitySubgraph, type IdentityService } from './app.js';
import { mountInternalAuth } from './internal-auth.http.js';

await runSubgraphProcess({
  name: 'identity',
  needs: ['documents', 'cache'],
  env: { PRINCIPAL_CACHE_SECONDS: envInt(30, 1, 3600) },
  build: ({ backends, tokens, env }) =>
    createIdentitySubgraph({ documents: backends.documents!, cache: backends.cache!, tokens, principalCacheSeconds: env.PRINCIPAL_CACHE_SECONDS }),
  extend: (app, { tokens, subgraph }) => mountInternalAuth(app, (subgraph as IdentityService).authenticator, tokens),
});
