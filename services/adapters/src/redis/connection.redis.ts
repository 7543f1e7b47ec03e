/** One ioredis connection as the Redis adapters (cache, pub/sub, leases, streams) open and close it. */
import { Redis, type RedisOptions } from 'ioredis';

export interface RedisClientOptions {
  url: string;
  /** Longest a command may take, including waiting for a connection. */
  commandTimeoutMs: number;
  /** TCP connect timeout per attempt. */
  connectTimeoutMs: number;
  /** Connection errors (reconnection goes on by itself). Default: ignored, commands report them. */
  onError?: (error: Error) => void;
}

/** A client that connects at once and reconnects by itself; `name` is its CLIENT SETNAME. */
export function openRedis(o: RedisClientOptions, name: string): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    // Commands issued while (re)connecting wait in the offline queue, bounded by the two limits below.
    enableOfflineQueue: true,
    maxRetriesPerRequest: 2,
    commandTimeout: o.commandTimeoutMs,
    connectTimeout: o.connectTimeoutMs,
    retryStrategy: (times) => Math.min(times * 100, 2_000),
    connectionName: name,
    // After a failed connection, ioredis keeps a ref'd timer this long on disconnect (it waits for a
    // 'close' that already happened); keep it short so closing does not hold the process open.
    disconnectTimeout: 200,
  };
  const client = new Redis(o.url, options);
  client.on('error', (err: Error) => o.onError?.(err));
  return client;
}

/** Quits politely when connected, otherwise (or when QUIT hangs) drops the connection. */
export async function shutdown(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status === 'ready') await Promise.race([client.quit().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
  client.disconnect();
}
