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
