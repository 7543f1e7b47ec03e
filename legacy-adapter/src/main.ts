/** Distributed mode: the legacy adapter as its own process, sending persisted operations to the gateway over HTTP. */
import { createAuditSink } from '@pylon/composition/audit-sink';
import { createHttpGatewayClient, createLogger, createOps, listenHttp, loadConfigOrExit, metricsAccess, onShutdown, serveMetrics } from '@pylon/kit';
import { legacyAdapterEnv } from './config.js';
import { createLegacyApp } from './index.js';

const env = loadConfigOrExit(legacyAdapterEnv);
const logger = createLogger({ level: env.LOG_LEVEL, name: 'legacy-adapter' });
const ops = createOps('legacy-adapter');
try {
  const client = createHttpGatewayClient({ url: env.GATEWAY_URL, timeoutMs: env.GATEWAY_TIMEOUT_MS });
  const audit = await createAuditSink(env, 'pylon-legacy-adapter', logger);
  const server = await listenHttp(
    createLegacyApp({ client, logger, ops, audit: audit.sink, trustProxy: env.TRUST_PROXY, metrics: metricsAccess(env) }),
    env.PORT,
    env.HOST,
  );
  logger.info({ port: env.PORT }, 'legacy adapter listening');
  const metricsServer = await serveMetrics(ops, metricsAccess(env), env.HOST);
  onShutdown({ ops, servers: metricsServer ? [server, metricsServer] : [server], logger, closers: [() => audit.close()] });
} catch (e) {
  logger.fatal({ err: e }, 'failed to start');
  process.exit(1);
}
