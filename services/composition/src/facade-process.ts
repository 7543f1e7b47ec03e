/**
 * The process around a facade (the REST facade, the legacy adapter) in distributed mode: its
 * settings, the gateway client it sends persisted operations through, the audit sink, the HTTP
 * server with the ops endpoints and metrics, and the shutdown order. One composition root shape,
 * so the two facades start, report and stop alike.
 */
import type { Express } from 'express';
import { z } from 'zod';
import {
  createHttpGatewayClient,
  createLogger,
  createOps,
  envInt,
  envTrustProxy,
  metricsAccess,
  onShutdown,
  serveMetrics,
  serverEnv,
  type AuditSink,
  type GatewayClient,
  type Logger,
  type MetricsAccess,
  type Ops,
} from '@pylon/kit';
import { listenHttp } from '@pylon/kit/serving';
import { auditSinkEnv, createAuditSink } from './audit-sink.js';

/** A facade process's settings; only the default port differs between facades. */
export const facadeProcessEnv = (defaultPort: number) =>
  z.object({
    ...serverEnv(defaultPort),
    TRUST_PROXY: envTrustProxy(),
    GATEWAY_URL: z.string().url(),
    GATEWAY_TIMEOUT_MS: envInt(10000, 100, 120000),
    ...auditSinkEnv,
  });

export type FacadeProcessEnv = z.infer<ReturnType<typeof facadeProcessEnv>>;

/** What the facade's app is built from. */
export interface FacadeParts {
  client: GatewayClient;
  logger: Logger;
  ops: Ops;
  audit: AuditSink | undefined;
  metrics: MetricsAccess;
  /** Readiness of the gateway this facade depends on (for /readyz). */
  gatewayReady: () => Promise<void>;
}

/** Starts a facade process: `name` is its log and metrics name ('rest-facade'), `label` its log wording. */
export async function runFacadeProcess(
  name: string,
  label: string,
  env: FacadeProcessEnv,
  buildApp: (parts: FacadeParts) => Promise<Express> | Express,
): Promise<void> {
  const logger = createLogger({ level: env.LOG_LEVEL, name });
  const ops = createOps(name);
  try {
    const client = createHttpGatewayClient({ url: env.GATEWAY_URL, timeoutMs: env.GATEWAY_TIMEOUT_MS });
    const audit = await createAuditSink(env, `pylon-${name}`, logger);
    const gatewayReady = async () => {
      const r = await fetch(new URL('/healthz', env.GATEWAY_URL), { signal: AbortSignal.timeout(1500) });
      if (!r.ok) throw new Error('gateway unhealthy');
    };
    const app = await buildApp({ client, logger, ops, audit: audit.sink, metrics: metricsAccess(env), gatewayReady });
    const server = await listenHttp(app, env.PORT, env.HOST);
    logger.info({ port: env.PORT }, `${label} listening`);
    const metricsServer = await serveMetrics(ops, metricsAccess(env), env.HOST);
    onShutdown({ ops, servers: metricsServer ? [server, metricsServer] : [server], logger, closers: [() => audit.close()] });
  } catch (e) {
    logger.fatal({ err: e }, 'failed to start');
    process.exit(1);
  }
}
