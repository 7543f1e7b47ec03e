/**
 * The push events' log writer, for the live stream (`GET /events/stream`): a consumer group of its
 * own (`event-log`) appends each event of `push.events` with an append sequence, so a client
 * resumes with Last-Event-ID exactly after what it saw. Entries older than 24 h are pruned.
 */
import { PUSH_EVENTS_TOPIC, type EventStream, type Logger, type PubSub, type PushEvent } from '@pylon/kit';
import { EVENT_LOG_APPENDED, type PushEventLog } from './push-event-log.repository.js';

export { EVENT_LOG_APPENDED, PushEventLog, type LoggedEvent } from './push-event-log.repository.js';
export const EVENT_LOG_GROUP = 'event-log';
export const EVENT_LOG_RETENTION_MS = 86_400_000;

/** Runs the log writer; prunes each account's old entries once an hour as it writes. */
export async function startEventLog(deps: { stream: EventStream; log: PushEventLog; logger: Logger; pubsub?: PubSub | undefined }) {
  const pruned = new Map<string, number>();
  return deps.stream.subscribe(PUSH_EVENTS_TOPIC, { group: EVENT_LOG_GROUP, maxBatchSize: 500, maxWaitMs: 5 }, async (batch) => {
    const events = batch.map((m) => m.value as PushEvent).filter((e) => e && typeof e.account_id === 'string' && e.type !== 'webhook.test');
    await deps.log.append(events);
    const accounts = [...new Set(events.map((e) => e.account_id))];
    // A lost notice costs a stream its next read only until its next wake-up (the credential re-check).
    if (accounts.length && deps.pubsub)
      await deps.pubsub.publish(EVENT_LOG_APPENDED, accounts).catch((e: unknown) => deps.logger.warn({ err: e }, 'event log notice not published'));
    for (const tenant of new Set(events.map((e) => e.account_id))) {
      if (Date.now() - (pruned.get(tenant) ?? 0) < 3_600_000) continue;
      pruned.set(tenant, Date.now());
      await deps.log.prune(tenant, Date.now() - EVENT_LOG_RETENTION_MS).catch((e: unknown) => deps.logger.warn({ err: e }, 'event log not pruned'));
    }
  });
}
