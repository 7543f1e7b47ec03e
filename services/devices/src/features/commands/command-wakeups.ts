/**
 * Wakes long-polling pings when commands are queued for their device, when scheduling announces
 * that its manifest changed (CHANNELS.manifestsChanged: the ping answers with the new
 * manifest_version), or when datatables announces that a table the screen shows changed
 * (CHANNELS.dataTablesChanged; a ping names the tables it shows, `?tables=`: the screen re-reads
 * their rows after every answer), across replicas.
 *
 * The queue itself is durable (documents); this only shortens the wait. A send publishes
 * `{ a: accountId, d: [deviceIds] }` on one PubSub channel (chunked), every replica subscribes
 * once and resolves its local waiters. Without a PubSub (tests, single process) the wake-up stays
 * in-process. A lost message (Redis down) costs latency, never a command: the next ping reads the
 * queue anyway.
 */
import { CHANNELS, isDataTablesChangedEvent, isManifestsChangedEvent, type Logger, type PubSub } from '@pylon/kit';

export const WAKEUP_CHANNEL = 'pylon.devices.commands';
const CHUNK = 500;

export interface Waiter {
  /** Resolves true when woken by a notification, false on timeout, abort or shutdown. */
  readonly promise: Promise<boolean>;
  cancel(): void;
}

type Wake = (woken: boolean) => void;

export class CommandWakeups {
  private readonly waiters = new Map<string, Set<Wake>>();
  /** The same waiters by the data tables their screens show (account + table). */
  private readonly tableWaiters = new Map<string, Set<Wake>>();
  private subscribed: Promise<void> | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private closed = false;
  private draining = false;

  constructor(
    private readonly pubsub: PubSub | undefined,
    private readonly logger?: Logger,
  ) {}

  /** Subscribes once; later calls share the first subscription (retried after a failure). */
  start(): Promise<void> {
    if (!this.pubsub || this.closed) return Promise.resolve();
    const pubsub = this.pubsub;
    this.subscribed ??= Promise.allSettled([
      pubsub.subscribe(WAKEUP_CHANNEL, (m) => this.onMessage(m)),
      pubsub.subscribe(CHANNELS.manifestsChanged, (m) => {
        if (isManifestsChangedEvent(m)) this.wake(m.accountId, m.deviceIds);
      }),
      pubsub.subscribe(CHANNELS.dataTablesChanged, (m) => {
        if (isDataTablesChangedEvent(m)) this.wakeTables(m.accountId, m.tableIds);
      }),
    ]).then(async (results) => {
      const offs = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) {
        // All or nothing, so a retry does not subscribe a channel twice.
        await Promise.allSettled(offs.map((off) => off()));
        this.subscribed = undefined;
        throw failed.reason;
      }
      this.unsubscribe = async () => void (await Promise.allSettled(offs.map((off) => off())));
    });
    return this.subscribed;
  }

  /** Tells every replica that these devices have new commands. Never throws. */
  async notify(accountId: string, deviceIds: readonly string[]): Promise<void> {
    if (!deviceIds.length || this.closed) return;
    if (!this.pubsub) {
      this.wake(accountId, deviceIds);
      return;
    }
    try {
      for (let i = 0; i < deviceIds.length; i += CHUNK) await this.pubsub.publish(WAKEUP_CHANNEL, { a: accountId, d: deviceIds.slice(i, i + CHUNK) });
    } catch (e) {
      this.logger?.warn({ err: e }, 'command wake-up not published; devices polling other replicas get their commands on their next ping');
      this.wake(accountId, deviceIds);
    }
  }

  /**
   * Registers a waiter for one device. Register BEFORE reading the queue: a notification between
   * the read and the wait then still wakes it.
   */
  async register(accountId: string, deviceId: string, timeoutMs: number, signal?: AbortSignal, tableIds: readonly string[] = []): Promise<Waiter> {
    try {
      await this.start();
    } catch (e) {
      this.logger?.warn({ err: e }, 'command wake-ups unavailable; long-polls wait out their timeout');
    }
    const key = keyOf(accountId, deviceId);
    let settle!: Wake;
    const promise = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    let done = false;
    const set = this.waiters.get(key) ?? new Set<Wake>();
    this.waiters.set(key, set);
    const tableKeys = [...new Set(tableIds)].map((t) => keyOf(accountId, t));
    const finish: Wake = (woken) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      set.delete(finish);
      if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
      for (const k of tableKeys) {
        const byTable = this.tableWaiters.get(k);
        byTable?.delete(finish);
        if (byTable?.size === 0) this.tableWaiters.delete(k);
      }
      settle(woken);
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), Math.max(0, timeoutMs));
    timer.unref?.();
    if (this.closed || this.draining || signal?.aborted) finish(false);
    else {
      set.add(finish);
      for (const k of tableKeys) {
        const byTable = this.tableWaiters.get(k) ?? new Set<Wake>();
        this.tableWaiters.set(k, byTable);
        byTable.add(finish);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    }
    return { promise, cancel: () => finish(false) };
  }

  /** Long-polls currently waiting in this process. */
  get waiting(): number {
    let n = 0;
    for (const s of this.waiters.values()) n += s.size;
    return n;
  }

  /** Ends every wait now, and every later one at once (shutdown: long-polls answer instead of holding the server open). */
  releaseAll(): void {
    this.draining = true;
    for (const set of [...this.waiters.values()]) for (const finish of [...set]) finish(false);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.releaseAll();
    const u = this.unsubscribe;
    this.unsubscribe = undefined;
    await u?.().catch(() => undefined);
  }

  private onMessage(message: unknown): void {
    const m = message as { a?: unknown; d?: unknown } | null;
    if (!m || typeof m.a !== 'string' || !Array.isArray(m.d)) return;
    this.wake(
      m.a,
      m.d.filter((d): d is string => typeof d === 'string'),
    );
  }

  /** Wakes the waiting pings of screens showing any of these tables (this process's; every replica gets the event). */
  wakeTables(accountId: string, tableIds: readonly string[]): void {
    for (const t of tableIds) {
      const set = this.tableWaiters.get(keyOf(accountId, t));
      if (set) for (const finish of [...set]) finish(true);
    }
  }

  private wake(accountId: string, deviceIds: readonly string[]): void {
    for (const id of deviceIds) {
      const set = this.waiters.get(keyOf(accountId, id));
      if (set) for (const finish of [...set]) finish(true);
    }
  }
}

const keyOf = (accountId: string, deviceId: string) => `${accountId}\u0000${deviceId}`;
