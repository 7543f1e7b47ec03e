/** Distributed mode: the REST facade as its own process, sending persisted operations to the gateway over HTTP. */
import express from 'express';
import { createAuditSink } from '@pylon/composition/audit-sink';
import {
  createHttpGatewayClient,
  createLogger,
  createOps,
  listenHttp,
  loadConfigOrExit,
  metricsAccess,
  mountOps,
  onShutdown,
  requestLogging,
  serveMetrics,
} from '@pylon/kit';
import { restFacadeEnv } from './config.js';
import { createRestFacade } from './index.js';

const env = loadConfigOrExit(restFacadeEnv);
const logger = createLogger({ level: env.LOG_LEVEL, name: 'rest-facade' });
const ops = createOps('rest-facade');
try {
  const client = createHttpGatewayClient({ url: env.GATEWAY_URL, timeoutMs: env.GATEWAY_TIMEOUT_MS });
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', env.TRUST_PROXY);
  app.use(requestLogging(ops, logger));
  mountOps(
    app,
    ops,
    {
      gateway: async () => {
        const r = await fetch(new URL('/healthz', env.GATEWAY_URL), { signal: AbortSignal.timeout(1500) });
        if (!r.ok) throw new Error('gateway unhealthy');
      },
    },
    metricsAccess(env),
  );
  const audit = await createAuditSink(env, 'pylon-rest-facade', logger);
  app.use(await createRestFacade({ client, logger, audit: audit.sink }));
  const server = await listenHttp(app, env.PORT, env.HOST);
  logger.info({ port: env.PORT }, 'REST facade listening');
  const metricsServer = await serveMetrics(ops, metricsAccess(env), env.HOST);
  onShutdown({ ops, servers: metricsServer ? [server, metricsServer] : [server], logger, closers: [() => audit.close()] });
} catch (e) {
  logger.fatal({ err: e }, 'failed to start');
  process.exit(1);
}
