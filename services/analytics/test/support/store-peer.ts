/**
 * One analytics store shared by several test processes: the embedded chDB store opens its data
 * directory in one process only, so the test process serves its store's calls over loopback HTTP
 * (JSON) and each consumer process uses `remoteStore`. The store behind it is the real one
 * (ReplacingMergeTree, materialized views, deduplication tokens); this is only the wire.
 */
import type { AnalyticsStore } from '@pylon/kit';
import { loopback } from './loopback.js';

type Call = { op: 'insert' | 'query' | 'exec' | 'ping'; args: unknown[] };

export function serveStore(store: AnalyticsStore): Promise<{ url: string; close(): Promise<void> }> {
  return loopback((_url, body, res) => {
    void (async () => {
      const { op, args } = JSON.parse(body) as Call;
      try {
        const fn = store[op] as (...a: unknown[]) => Promise<unknown>;
        const result = await fn.apply(store, args);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: result ?? null }));
      } catch (e) {
        const err = e as { message?: string; transient?: boolean };
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: String(err.message), transient: err.transient === true }));
      }
    })();
  });
}

export function remoteStore(url: string): AnalyticsStore {
  async function call<T>(op: Call['op'], ...args: unknown[]): Promise<T> {
    const res = await fetch(url, { method: 'POST', body: JSON.stringify({ op, args }) });
    const answer = (await res.json()) as { result?: T; message?: string; transient?: boolean };
    if (res.status !== 200) throw Object.assign(new Error(answer.message), answer.transient ? { transient: true } : {});
    return answer.result as T;
  }
  return {
    migrate: async () => [],
    insert: (table, rows, options) => call('insert', table, rows, options),
    query: (sql, params) => call('query', sql, params),
    queryStream: () => {
      throw new Error('not served');
    },
    exec: (sql, params) => call('exec', sql, params),
    ping: () => call('ping'),
    close: async () => undefined,
  };
}
