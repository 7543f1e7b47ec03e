/**
 * Distributed mode: the identity subgraph as its own process, plus the gateway's key and token
 * check (/internal/authenticate), the OAuth 2.0 / OIDC server ({auth_url} = OAUTH_ISSUER) and the
 * live stream GET /events/stream (read from the push-event log the webhook-worker writes; reached
 * through the gateway, which authenticates the caller and forwards with the internal token).
 * Key revocations recorded anywhere (GraphQL, admin CLI, other replicas) are picked up by polling
 * and announced on the pub/sub channel the gateways listen to, so their caches forget the key.
 */
import { INTERNAL_TOKEN_HEADER, liveStreamMetrics } from '@pylon/kit';
import { closingPushEvents } from '@pylon/composition/push-events';
import { createAuditSink } from '@pylon/composition/audit-sink';
import { createRateLimiter } from '@pylon/composition/backends';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { createIdentitySubgraph, type IdentityService } from './app.js';
import { identityProcessEnv, oauthSettings } from './config.js';
import { mountInternalAuth } from './features/api-keys/http/internal-auth.http.js';
import { createOAuthServer, type OAuthServer } from './features/oauth/http/server.js';
import { principalCacheKey } from './features/api-keys/api-keys.js';
import { KEY_REVOKED_CHANNEL, watchRevocations } from './features/api-keys/revocations.js';
import { createEventsStreamHttp } from './features/webhooks/http/events-stream.http.js';
import { PushEventLog } from './features/webhooks/push-event-log.repository.js';
import { credentialChecker } from './features/api-keys/credential-check.js';

let oauth: OAuthServer | undefined;

await runSubgraphProcess({
  name: 'identity',
  // The stream carries its push events (user.created, api_key.revoked).
  needs: ['documents', 'cache', 'stream'],
  env: identityProcessEnv,
  build: async ({ backends, tokens, env, logger }) => {
    const push = closingPushEvents(backends, logger);
    const identity = createIdentitySubgraph({
      documents: backends.documents!,
      cache: backends.cache!,
      tokens,
      principalCacheSeconds: env.PRINCIPAL_CACHE_SECONDS,
      ...push,
    });
    const loginLimiter = await createRateLimiter(env, {
      name: 'auth-failures',
      points: env.AUTH_FAILURE_POINTS,
      durationSeconds: env.AUTH_FAILURE_WINDOW_SECONDS,
    });
    // Each closed from the moment it exists (closers run in reverse): a start attempt that fails
    // later (oauth.start while MongoDB is not up) closes them before the next one opens its own.
    backends.onClose(() => loginLimiter.close());
    const audit = await createAuditSink(env, 'pylon-identity', logger);
    backends.onClose(() => audit.close());
    const server = createOAuthServer({
      documents: backends.documents!,
      repo: identity.repo,
      settings: oauthSettings(env),
      bearer: identity.bearer,
      logger,
      loginLimiter,
      audit: audit.sink,
    });
    backends.onClose(() => server.close());
    await server.start(env.OAUTH_ISSUER ?? `http://localhost:${env.PORT}`);
    const watcher = watchRevocations(
      identity.repo,
      async (hash) => {
        await identity.cache.del(principalCacheKey(hash)).catch(() => undefined);
        await backends.pubsub?.publish(KEY_REVOKED_CHANNEL, { hash }).catch(() => undefined);
      },
      { intervalMs: env.REVOCATION_POLL_MS },
    );
    backends.onClose(() => watcher.close());
    oauth = server;
    return identity;
  },
  extend: (app, { tokens, subgraph, backends, env, ops, onClose }) => {
    const identity = subgraph as IdentityService;
    mountInternalAuth(app, identity, tokens);
    if (oauth) app.use(oauth.handler);
    const holds = credentialChecker(identity.repo);
    // The caller's principal comes signed by the gateway (edge-forward.ts), never from credentials here.
    const events = createEventsStreamHttp(new PushEventLog(backends.documents!), {
      authenticate: (req) => tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null),
      // The signed principal lasts a minute by design, which says nothing about the key behind it:
      // the credential it names is looked up in this process's store (revoked, expired, user gone).
      recheck: (_req, principal) => holds(principal),
      // The log writer runs in the webhook-worker: its notices reach this process only over Redis.
      appended: env.CACHE_DRIVER === 'redis' ? backends.pubsub : undefined,
      leases: backends.leases!,
      metrics: liveStreamMetrics(ops.registry),
    });
    app.use(events);
    // Open streams end at once on shutdown, so draining the server does not wait for them.
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => events.closeAll());
    onClose(async () => events.closeAll());
  },
});
