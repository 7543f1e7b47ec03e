/**
 * The all-in-one process's access layer, built in one place: API key and bearer authentication
 * with rate limits around them, the audit publisher every HTTP edge records into, the OAuth
 * server, and the watcher that makes key revocations done elsewhere (admin CLI, other replicas)
 * take effect here within REVOCATION_POLL_MS.
 */
import { auditReads, BufferedPublisher, TOPICS, type AuditEventRecord, type AuditSink, type Logger } from '@pylon/kit';
import { createRateLimiter, type Backends } from '@pylon/composition/backends';
import { createOAuthServer, principalCacheKey, watchRevocations, type IdentityService, type OAuthServer } from '@pylon/identity';
import type { AllInOneEnv } from '../all-in-one.config.js';
import { credentialsFrom, requestKey, type EdgeAuthenticator } from '@pylon/gateway/edge-auth';
import { limitedAuthenticator } from '@pylon/gateway/rate-limits';
import { recheckBy, type EventsStreamOptions } from '@pylon/identity/features/webhooks/http/events-stream.http';

export interface AccessLayer {
  /** Keys and bearer tokens, with the per-key and per-address limits. */
  auth: EdgeAuthenticator;
  /** The same, before the rate limits: for re-checking a credential already admitted (see streamCredentials). */
  identify: EdgeAuthenticator;
  /** What the edges record into (reads left out when AUDIT_READS=false). */
  audit: AuditSink;
  /** The durable publisher behind it (its counts are on /metrics). */
  auditPublisher: BufferedPublisher<AuditEventRecord>;
  oauth: OAuthServer;
  /** Starts the OAuth server for the public base URL (OAUTH_ISSUER wins when set). */
  start(baseUrl: string): Promise<void>;
  close(): Promise<void>;
}

/** API key first (header, then query), else the bearer token. */
export function identityAuthenticator(identity: IdentityService): EdgeAuthenticator {
  return {
    authenticate: async ({ apiKey, bearer }) => (apiKey ? identity.authenticator.authenticate(apiKey) : bearer ? identity.bearer.authenticate(bearer) : null),
  };
}

/**
 * How the live stream re-checks and counts a credential. The re-check authenticates without the
 * rate limits: an open stream re-checks every RECHECK_MS, which must neither spend its key's budget
 * nor end the stream (as "revoked") when other requests exhaust it. Streams are counted per key the
 * way the rate limits charge requests (API key before bearer), so a header the authenticator
 * ignores does not open a new count.
 */
export function streamCredentials(identify: EdgeAuthenticator): Required<Pick<EventsStreamOptions, 'recheck' | 'credentialKey'>> {
  return {
    recheck: recheckBy((req) => identify.authenticate(credentialsFrom(req))),
    credentialKey: (req, principal) => requestKey(credentialsFrom(req), principal),
  };
}

export async function createAccessLayer(env: AllInOneEnv, deps: { backends: Backends; identity: IdentityService; logger: Logger }): Promise<AccessLayer> {
  const { backends, identity, logger } = deps;
  const requests = await createRateLimiter(env, { name: 'requests', points: env.RATE_LIMIT_POINTS, durationSeconds: env.RATE_LIMIT_DURATION_SECONDS });
  const failures = await createRateLimiter(env, { name: 'auth-failures', points: env.AUTH_FAILURE_POINTS, durationSeconds: env.AUTH_FAILURE_WINDOW_SECONDS });
  // Audit events are never dropped: while the stream refuses them they wait in the spool.
  const publisher = new BufferedPublisher<AuditEventRecord>(backends.stream!, TOPICS.audit, { logger, ...(backends.spool ? { spool: backends.spool } : {}) });
  const audit = auditReads(publisher, env.AUDIT_READS);
  const identify = identityAuthenticator(identity);
  const auth = limitedAuthenticator(identify, { requests, failures, logger });
  const oauth = createOAuthServer({
    documents: backends.documents!,
    repo: identity.repo,
    settings: {
      clientId: env.OAUTH_CLIENT_ID,
      redirectUris: env.OAUTH_REDIRECT_URIS,
      accessTokenSeconds: env.OAUTH_ACCESS_TOKEN_SECONDS,
      audience: env.OAUTH_AUDIENCE,
    },
    bearer: identity.bearer,
    logger,
    loginLimiter: failures,
    audit,
  });
  const watcher = watchRevocations(identity.repo, (hash) => identity.cache.del(principalCacheKey(hash)).catch(() => undefined), {
    intervalMs: env.REVOCATION_POLL_MS,
  });
  return {
    auth,
    identify,
    audit,
    auditPublisher: publisher,
    oauth,
    start: (baseUrl) => oauth.start(env.OAUTH_ISSUER ?? baseUrl),
    async close() {
      await watcher.close();
      await oauth.close();
      await publisher.close();
      await requests.close();
      await failures.close();
    },
  };
}
