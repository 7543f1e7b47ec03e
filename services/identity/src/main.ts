/**
 * Distributed mode: the identity subgraph as its own process, plus the gateway's key and token
 * check (/internal/authenticate) and the OAuth 2.0 / OIDC server ({auth_url} = OAUTH_ISSUER).
 * Key revocations recorded anywhere (GraphQL, admin CLI, other replicas) are picked up by polling
 * and announced on the pub/sub channel the gateways listen to, so their caches forget the key.
 */
import { createLogger } from '@pylon/kit';
import { createAuditSink } from '@pylon/composition/audit-sink';
import { createRateLimiter } from '@pylon/composition/backends';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { createIdentitySubgraph, type IdentityService } from './app.js';
import { identityProcessEnv, oauthSettings } from './config.js';
import { mountInternalAuth } from './http/internal-auth.http.js';
import { createOAuthServer, type OAuthServer } from './http/oauth/server.js';
import { principalCacheKey } from './use-cases/api-keys.js';
import { KEY_REVOKED_CHANNEL, watchRevocations } from './use-cases/revocations.js';

let oauth: OAuthServer | undefined;

await runSubgraphProcess({
  name: 'identity',
  needs: ['documents', 'cache'],
  env: identityProcessEnv,
  build: async ({ backends, tokens, env }) => {
    const logger = createLogger({ level: env.LOG_LEVEL, name: 'identity' });
    const identity = createIdentitySubgraph({
      documents: backends.documents!,
      cache: backends.cache!,
      tokens,
      principalCacheSeconds: env.PRINCIPAL_CACHE_SECONDS,
    });
    const loginLimiter = await createRateLimiter(env, {
      name: 'auth-failures',
      points: env.AUTH_FAILURE_POINTS,
      durationSeconds: env.AUTH_FAILURE_WINDOW_SECONDS,
    });
    const audit = await createAuditSink(env, 'pylon-identity', logger);
    oauth = createOAuthServer({
      documents: backends.documents!,
      repo: identity.repo,
      settings: oauthSettings(env),
      bearer: identity.bearer,
      logger,
      loginLimiter,
      audit: audit.sink,
    });
    await oauth.start(env.OAUTH_ISSUER ?? `http://localhost:${env.PORT}`);
    const watcher = watchRevocations(
      identity.repo,
      async (hash) => {
        await identity.cache.del(principalCacheKey(hash)).catch(() => undefined);
        await backends.pubsub?.publish(KEY_REVOKED_CHANNEL, { hash }).catch(() => undefined);
      },
      { intervalMs: env.REVOCATION_POLL_MS },
    );
    backends.onClose(async () => {
      await watcher.close();
      await oauth?.close();
      await audit.close();
      await loginLimiter.close();
    });
    return identity;
  },
  extend: (app, { tokens, subgraph }) => {
    mountInternalAuth(app, subgraph as IdentityService, tokens);
    if (oauth) app.use(oauth.handler);
  },
});
