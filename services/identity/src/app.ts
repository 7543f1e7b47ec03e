import { JsonScalar, mergeResolvers, type Cache, type DocumentStore, type InternalTokens, type PushEvents, type Subgraph } from '@pylon/kit';
import { createSubgraph } from '@pylon/kit/serving';
import { accountResolvers } from './features/accounts/resolvers.js';
import { apiKeyResolvers } from './features/api-keys/resolvers.js';
import { permissionResolvers } from './features/permissions/resolvers.js';
import { IdentityRepository } from './shared/identity.repository.js';
import { BearerAuthenticator } from './features/oauth/bearer.js';
import { ApiKeyAuthenticator } from './features/api-keys/api-keys.js';
import { WebhookRepository } from './features/webhooks/webhook.repository.js';
import { webhookResolvers } from './features/webhooks/resolvers.js';
import type { WebhookDeviceDirectory } from './features/webhooks/manage-webhooks.js';

export interface IdentityDeps {
  documents: DocumentStore;
  cache: Cache;
  tokens: InternalTokens;
  principalCacheSeconds: number;
  /** Checks webhook filters' device and group ids (the devices subgraph's, in-process or over HTTP). */
  webhookDevices?: WebhookDeviceDirectory;
  /** Push events (user.created, user.updated, api_key.revoked). */
  pushEvents?: PushEvents;
}

export interface IdentityService extends Subgraph {
  repo: IdentityRepository;
  authenticator: ApiKeyAuthenticator;
  /** Verifies OAuth access tokens once the OAuth server (http/oauth/server.ts) has started. */
  bearer: BearerAuthenticator;
  cache: Cache;
  /** Webhook endpoints and their delivery log (the delivery worker shares it). */
  webhooks: WebhookRepository;
}

/** The identity subgraph plus the authenticators the gateway's edge uses (in-process or over HTTP). */
export function createIdentitySubgraph(deps: IdentityDeps): IdentityService {
  const repo = new IdentityRepository(deps.documents);
  const authenticator = new ApiKeyAuthenticator({ repo, cache: deps.cache, cacheTtlSeconds: deps.principalCacheSeconds });
  const bearer = new BearerAuthenticator({ repo, cache: deps.cache, cacheTtlSeconds: deps.principalCacheSeconds });
  const webhooks = new WebhookRepository(deps.documents);
  const resolvers = mergeResolvers(
    permissionResolvers(),
    accountResolvers({ repo, cache: deps.cache, ...(deps.pushEvents ? { pushEvents: deps.pushEvents } : {}) }),
    apiKeyResolvers({ repo, cache: deps.cache }),
    webhookResolvers({ repo: webhooks, now: Date.now, ...(deps.webhookDevices ? { devices: deps.webhookDevices } : {}) }),
    { JSON: JsonScalar },
  );
  const subgraph = createSubgraph({ name: 'identity', tokens: deps.tokens, resolvers });
  return Object.assign(subgraph, { repo, authenticator, bearer, cache: deps.cache, webhooks });
}
