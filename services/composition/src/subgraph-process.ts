/**
 * The composition root shared by every subgraph's main.ts in distributed mode: validate the
 * env (every error at once), listen at once (live, not ready), open the backends the subgraph
 * needs in the background until they answer (background-start.ts), serve it over HTTP, shut
 * down gracefully.
 */
import type { Express } from 'express';
import { z } from 'zod';
import { envTrustProxy, InternalTokens, loadConfigOrExit, metricsAccess, serverEnv, type Logger, type Ops, type Subgraph } from '@pylon/kit';
import { createSubgraphHttp } from '@pylon/kit/serving';
import { backendEnv, backendRules, type BackendEnv, type Backends, type createBackends } from './backends.js';
import { runOnBackends } from './background-start.js';

export const subgraphEnv = backendEnv.extend({
  ...serverEnv(4001),
  TRUST_PROXY: envTrustProxy(),
  SIGNAGE_INTERNAL_SECRET: z.string().min(32),
});

/** A subgraph process's whole config schema: the shared settings, its own, the backend rules. */
export const subgraphConfig = <E extends z.ZodRawShape>(extra: E = {} as E) => subgraphEnv.extend(extra).check(...backendRules);

export interface SubgraphProcessOptions<E extends z.ZodRawShape> {
  name: string;
  needs: Parameters<typeof createBackends>[1];
  /** Extra env keys this subgraph reads. */
  env?: E;
  build: (deps: {
    backends: Backends;
    tokens: InternalTokens;
    env: BackendEnv & z.infer<typeof subgraphEnv> & z.infer<z.ZodObject<E>>;
    logger: Logger;
  }) => Subgraph | Promise<Subgraph>;
  extend?: (
    app: Express,
    deps: {
      backends: Backends;
      tokens: InternalTokens;
      subgraph: Subgraph;
      env: BackendEnv & z.infer<typeof subgraphEnv> & z.infer<z.ZodObject<E>>;
      logger: Logger;
      /** The process's metrics registry (/metrics) and readiness state. */
      ops: Ops;
      /** Adds work to the graceful stop, run after the servers close and before the backends do. */
      onClose(closer: () => Promise<void>): void;
    },
  ) => void;
}

export async function runSubgraphProcess<E extends z.ZodRawShape>(o: SubgraphProcessOptions<E>): Promise<void> {
  const schema = subgraphConfig(o.env ?? ({} as E));
  const env = loadConfigOrExit(schema) as BackendEnv & z.infer<typeof subgraphEnv> & z.infer<z.ZodObject<E>>;
  await runOnBackends({
    name: o.name,
    env,
    needs: o.needs,
    build: async ({ backends, logger, ops }) => {
      const tokens = new InternalTokens(env.SIGNAGE_INTERNAL_SECRET);
      const subgraph = await o.build({ backends, tokens, env, logger });
      const closers: (() => Promise<void>)[] = [];
      const onClose = (closer: () => Promise<void>) => void closers.push(closer);
      const { app, server } = await createSubgraphHttp(subgraph, {
        ops,
        logger,
        checks: backends.checks,
        metrics: metricsAccess(env),
        ...(o.extend ? { extend: (a: Express) => o.extend!(a, { backends, tokens, subgraph, env, logger, ops, onClose }) } : {}),
      });
      app.set('trust proxy', env.TRUST_PROXY);
      return { app, label: `${o.name} subgraph listening`, closers: [() => server.stop(), ...closers, () => backends.close()] };
    },
  });
}
