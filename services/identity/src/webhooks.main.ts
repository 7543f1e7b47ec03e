/**
 * Composition root of the webhook delivery worker (the "webhook-worker" role): the push.events
 * topic -> matching endpoints -> signed HTTP deliveries, scaled separately (any number of replicas:
 * leases in the documents store keep each attempt to one of them). Serves /healthz, /readyz (fails
 * when its consumer stopped or a backend is down) and /metrics. `npm start` runs the same worker in-process.
 */
import express from 'express';
import { createLogger, createOps, listenHttp, loadConfigOrExit, metricsAccess, mountOps, onShutdown, serveMetrics } from '@pylon/kit';
import { createBackends } from '@pylon/composition/backends';
import { createPushEventProducer } from '@pylon/composition/push-events';
import { retryPolicyFrom, webhookWorkerEnv } from './webhooks.config.js';
import { startDeliveryWorker } from './webhooks/delivery.worker.js';
import { WebhookRepository } from './webhooks/webhook.repository.js';

const env = loadConfigOrExit(webhookWorkerEnv);
const logger = createLogger({ level: env.LOG_LEVEL, name: 'webhooks' });
const ops = createOps('webhooks');
try {
  const backends = await createBackends(env, ['documents', 'stream'], 'pylon-webhooks', { logger });
  const push = createPushEventProducer(backends, logger);
  const worker = await startDeliveryWorker({
    stream: backends.stream!,
    repo: new WebhookRepository(backends.documents!),
    logger,
    allowList: env.WEBHOOK_ALLOW_LIST,
    policy: retryPolicyFrom(env),
    pollMs: env.WEBHOOK_POLL_MS,
    endpointConcurrency: env.WEBHOOK_ENDPOINT_CONCURRENCY,
    ...(push ? { pushEvents: push.events } : {}),
  });
  backends.onClose(async () => {
    await worker.close();
    await push?.publisher.close();
  });
  const app = express();
  app.disable('x-powered-by');
  mountOps(
    app,
    ops,
    { ...backends.checks, consumer: async () => (worker.alive() ? undefined : Promise.reject(new Error('the consumer stopped'))) },
    metricsAccess(env),
  );
  const http = await listenHttp(app, env.PORT, env.HOST);
  logger.info({ port: env.PORT }, 'webhook delivery worker running');
  const metricsServer = await serveMetrics(ops, metricsAccess(env), env.HOST);
  onShutdown({ ops, servers: metricsServer ? [http, metricsServer] : [http], logger, closers: [() => backends.close()] });
} catch (e) {
  logger.fatal({ err: e }, 'failed to start');
  process.exit(1);
}
