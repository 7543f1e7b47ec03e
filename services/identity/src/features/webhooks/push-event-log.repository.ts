/**
 * The push events' readable log (the live stream resumes from it), over the documents port.
 * Invariant: one writer appends (event-log.ts; the stream hands a group's messages to one
 * consumer), so the sequence only grows; an event appended twice keeps its first place (id = event id).
 */
import { deviceOf, insertUnlessPresent, type Collection, type DocumentStore, type PushEvent, type Stored } from '@pylon/kit';
import { PUSH_EVENT_LOG, type PushEventLogRecord } from '../../domain/records.js';

export type LoggedEvent = Stored<PushEventLogRecord>;

export class PushEventLog {
  private readonly log: Collection<PushEventLogRecord>;
  private last = 0;
  private counter = 0;

  constructor(store: DocumentStore) {
    this.log = store.collection<PushEventLogRecord>(PUSH_EVENT_LOG);
  }

  private nextSeq(): string {
    const ms = Date.now();
    if (ms > this.last) {
      this.last = ms;
      this.counter = 0;
    }
    return `${String(this.last).padStart(15, '0')}-${String(this.counter++).padStart(9, '0')}`;
  }

  async append(events: readonly PushEvent[]): Promise<void> {
    for (const e of events) {
      await insertUnlessPresent(this.log, e.account_id, { id: e.id, seq: this.nextSeq(), type: e.type, deviceId: deviceOf(e)?.device_id ?? null, event: e });
    }
  }

  /** The sequence of an event of the account (Last-Event-ID), or null when unknown or pruned. */
  async seqOf(tenant: string, eventId: string): Promise<string | null> {
    return (await this.log.findById(tenant, eventId))?.seq ?? null;
  }

  /** Entries after `seq` (all retained ones when null), in append order. */
  after(tenant: string, seq: string | null, limit: number): Promise<LoggedEvent[]> {
    return this.log.find(tenant, seq ? { seq: { $gt: seq } } : {}, { sort: { seq: 1 }, limit });
  }

  /** The newest sequence of the account (a fresh client starts after it). */
  async head(tenant: string): Promise<string | null> {
    return (await this.log.find(tenant, {}, { sort: { seq: -1 }, limit: 1 }))[0]?.seq ?? null;
  }

  prune(tenant: string, beforeMs: number): Promise<number> {
    return this.log.deleteMany(tenant, { seq: { $lt: String(beforeMs).padStart(15, '0') } });
  }
}

/** The log writer's notice channel: it publishes the accounts' ids once their events are in the log (issue 34, M2). */
export const EVENT_LOG_APPENDED = 'push-events:appended';
