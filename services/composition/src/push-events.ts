/**
 * The push-event producer every composition root hands its subgraphs: one durable publisher of the
 * `push.events` topic (batched, spooled while the stream refuses, like telemetry). Close it after
 * the subgraphs stopped writing and before the stream.
 */
import { BufferedPublisher, PUSH_EVENTS_TOPIC, pushEventsOver, type EventStream, type Logger, type PushEvent, type PushEvents, type Spool } from '@pylon/kit';

export interface PushEventProducer {
  events: PushEvents;
  publisher: BufferedPublisher<PushEvent>;
}

export function createPushEventProducer(
  backends: { stream?: EventStream | undefined; spool?: Spool | undefined },
  logger: Logger,
): PushEventProducer | undefined {
  if (!backends.stream) return undefined;
  // Events are small and latency matters more than for telemetry: batches wait at most 20 ms.
  const publisher = new BufferedPublisher<PushEvent>(backends.stream, PUSH_EVENTS_TOPIC, {
    logger,
    maxWaitMs: 20,
    ...(backends.spool ? { spool: backends.spool } : {}),
  });
  return { events: pushEventsOver(publisher), publisher };
}

/**
 * The push events a composition root hands its subgraph (`{}` without a stream: spread it into the
 * deps), the publisher closed with the backends. onClose runs in reverse order of registration: what
 * registers after this stops before the publisher closes.
 */
export function closingPushEvents(
  backends: { stream?: EventStream | undefined; spool?: Spool | undefined; onClose(close: () => Promise<void>): void },
  logger: Logger,
): { pushEvents?: PushEvents } {
  const push = createPushEventProducer(backends, logger);
  if (!push) return {};
  backends.onClose(() => push.publisher.close());
  return { pushEvents: push.events };
}
