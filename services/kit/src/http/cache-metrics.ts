/**
 * Bounded in-process caches on a process's Prometheus registry: entries and estimated heap bytes
 * of each, read when /metrics is scraped (so a cache near its bounds shows before memory does).
 * The gateway's parsed documents, query plans and persisted queries use it (issue 34, M1).
 */
import { Gauge, type Registry } from 'prom-client';

export interface SizedCache {
  readonly size: number;
  readonly bytes: number;
}

/** `<prefix>_entries{cache}` and `<prefix>_bytes{cache}`; a start attempt that is retried replaces them. */
export function cacheMetrics(registry: Registry, prefix: string, caches: Readonly<Record<string, SizedCache>>): void {
  const gauge = (suffix: string, help: string, read: (c: SizedCache) => number) => {
    const name = `${prefix}_${suffix}`;
    registry.removeSingleMetric(name);
    new Gauge({
      name,
      help,
      labelNames: ['cache'],
      registers: [registry],
      collect() {
        for (const [cache, c] of Object.entries(caches)) this.set({ cache }, read(c));
      },
    });
  };
  gauge('entries', 'Entries held, by cache', (c) => c.size);
  gauge('bytes', 'Estimated heap bytes held, by cache', (c) => c.bytes);
}
