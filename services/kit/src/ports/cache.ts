/**
 * Cache and pub/sub port. Embedded adapter: in-process (single replica). Scaled adapter:
 * Redis through ioredis, so replicas share cached values and messages.
 */
export interface Cache {
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Stores a JSON-serialisable value; ttlSeconds > 0. */
  set(key: string, value: unknown, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
  /** Atomically increments a counter, creating it with the given ttl; returns the new value. */
  incr(key: string, ttlSeconds: number): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface PubSub {
  publish(channel: string, message: unknown): Promise<void>;
  /** Resolves once the subscription is active; the returned function unsubscribes. */
  subscribe(channel: string, handler: (message: unknown) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** One name to hold a lease on, and how many holders it admits at once. */
export interface LeaseSlot {
  name: string;
  limit: number;
}

/**
 * Counted leases on names, for limits on things that stay open (live event streams) shared by
 * replicas: a hold lapses `ttlSeconds` after it was taken or last renewed, so the holds of a
 * process that crashed stop counting on their own. Embedded adapter: in-process (one replica).
 * Scaled adapter: Redis, on the server's clock. Names taken or renewed together are touched by one
 * script: on Redis Cluster they must share a hash tag (`events-stream:{account}:...`).
 */
export interface Leases {
  /**
   * Takes one hold per slot for `holder`, all or none. Resolves null when taken, else the name of
   * the first slot that already has `limit` live holders (nothing is taken then).
   */
  acquire(slots: readonly LeaseSlot[], holder: string, ttlSeconds: number): Promise<string | null>;
  /** Extends the holder's holds; a lapsed one is taken again even past its limit (what it counts is still open). */
  renew(names: readonly string[], holder: string, ttlSeconds: number): Promise<void>;
  /** Lets the holder's holds go. */
  release(names: readonly string[], holder: string): Promise<void>;
  /** Live holders of the name. */
  count(name: string): Promise<number>;
  close(): Promise<void>;
}
