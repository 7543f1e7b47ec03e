/**
 * Composition root of the webhook delivery worker (the "webhook-worker" role): the push.events
 * topic -> matching endpoints -> signed HTTP deliveries, scaled separately (any number of replicas:
 * leases in the documents store keep each attempt to one of them). Serves /healthz, /readyz (fails
 * when its consumer stopped or a backend is down) and /metrics. It also writes the push-event log
 * the live stream reads (event-log.ts, its own consumer group; GET /events/stream is served by the
 * identity process through the gateway). `npm start` runs both in-process.
 */
import { loadConfigOrExit } from '@pylon/kit';
import { createPushEventProducer } from '@pylon/composition/push-events';
import { runWorkerProcess } from '@pylon/composition/worker-process';
import { retryPolicyFrom, webhookWorkerEnv } from './webhooks.config.js';
import { startDeliveryWorker } from './features/webhooks/webhook-delivery.worker.js';
import { startEventLog } from './features/webhooks/event-log.js';
import { PushEventLog } from './features/webhooks/push-event-log.repository.js';
import { WebhookRepository } from './features/webhooks/webhook.repository.js';

await runWorkerProcess({
  name: 'webhooks',
  label: 'webhook delivery worker running',
  env: loadConfigOrExit(webhookWorkerEnv),
  // The cache port for its pub/sub: the log writer announces appended events to the identity
  // processes' live streams (Redis when CACHE_DRIVER=redis; in-process otherwise, which reaches none).
  needs: ['documents', 'stream', 'cache'],
  start: async ({ env, backends, logger }) => {
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
    const eventLog = await startEventLog({ stream: backends.stream!, log: new PushEventLog(backends.documents!), logger, pubsub: backends.pubsub });
    return {
      check: async () => (worker.alive() && eventLog.alive() ? undefined : Promise.reject(new Error('a consumer stopped'))),
      close: async () => {
        await eventLog.close();
        await worker.close();
        await push?.publisher.close();
      },
    };
  },
});
