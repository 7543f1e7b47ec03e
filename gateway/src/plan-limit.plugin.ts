/**
 * New documents count against their caller's budget of query plans (issue 34, M1). A document the
 * gateway has not planned yet costs 4-8 times a repeated one (parse, validate, plan, compile in the
 * subgraph) and an entry in every cache on the way, so a key sending a new text each time (a literal
 * where a variable belongs) gets `points` such documents per window, beside its request limit. A
 * document already in the plan cache costs nothing here. Beyond the budget: 429, Retry-After, a
 * message naming the cause and the remedy (variables). The in-process facades send their persisted
 * documents without an edge rate key and are not charged. A limiter that fails allows the request
 * (as the request limiter does, rate-limits.ts).
 */
import { createHash } from 'node:crypto';
import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type DocumentNode } from 'graphql';
import type { Logger, RateLimiter } from '@pylon/kit';
import type { GatewayContext } from './data-sources.js';

/** The plan store's key, as @apollo/gateway computes it (its executor in dist/index.js). */
export const planStoreKey = (queryHash: string, operationName: string | undefined | null): string =>
  operationName ? createHash('sha256').update(queryHash).update(operationName).digest('hex') : queryHash;

/**
 * `planned`: whether the gateway holds a plan for the document: in the plan store under `key`, or
 * as a single fetch (single-fetch.executor.ts answers those without reading the plan store, so a hot
 * document's stored plan is not kept fresh there and may be evicted while it is still answered).
 */
export function planLimitPlugin(o: {
  limiter: RateLimiter;
  planned: (key: string, document: DocumentNode | undefined, operationName: string | undefined) => boolean;
  logger?: Logger;
}): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ contextValue, queryHash, request, document }) {
          const rateKey = contextValue.rateKey;
          if (!rateKey || o.planned(planStoreKey(queryHash, request.operationName), document, request.operationName ?? undefined)) return;
          let decision;
          try {
            decision = await o.limiter.consume(`plans:${rateKey}`);
          } catch (err) {
            o.logger?.warn({ err, limiter: 'plans' }, 'rate limiter failed; request allowed');
            return;
          }
          if (decision.allowed) return;
          const retryAfter = decision.retryAfterSeconds;
          throw new GraphQLError(
            `too many new GraphQL documents for this ${rateKey.startsWith('key:') ? 'API key' : 'user'} (each document the gateway has not seen costs a query plan): ` +
              `send the values that change as variables; retry in ${retryAfter} s`,
            { extensions: { code: 'RATE_LIMITED', retryAfter, http: { status: 429, headers: new HeaderMap([['retry-after', String(retryAfter)]]) } } },
          );
        },
      };
    },
  };
}
