/**
 * Compaction of the closed months of the raw tables and their rollups. Raw reads use FINAL so a replayed row counts once;
 * FINAL merges the parts of a partition at read time, which over months of rows is most of the
 * query's cost. The stores run FINAL with do_not_merge_across_partitions_select_final (kit
 * ANALYTICS_SETTINGS), which reads a partition that is one merged part without merging at all.
 * compactClosedPartitions merges each closed month (a partition before the current UTC month) that
 * still has several parts, or one part never merged, into one part (`OPTIMIZE ... PARTITION ID ...
 * FINAL`), so only the open month pays FINAL's merge. The rollups (every table a view fills,
 * ROLLUPS_OF) are merged the same way: a rollup read aggregates its rows anyway, but a closed month
 * kept as many parts (one per insert, plus the repairs' rows) reads each part's granules and rows;
 * merged, the rows of one key are one row (BENCHMARKS.md, issue 18i). Rows arriving late for a closed month make a new part; the
 * next run merges it in. Same SQL on chDB and the server.
 *
 * startCompaction runs it in the ingest process, the one that writes the tables: a first run a
 * minute after start, then every `everyMs` (ANALYTICS_COMPACT_HOURS, default 6 hours), never two
 * at once; a failed run is logged and tried again at the next tick. Several ingest processes may
 * each run it: a month already one merged part is skipped (optimize_throw_if_noop is off). Beside
 * it, on its own hourly timer, the unique visitors of the finished days are counted (visitor-days.ts).
 */
import type { AnalyticsStore, Logger } from '@pylon/kit';
import { ROLLUPS_OF } from './rollup-repair.js';
import { countVisitorDays } from './visitor-days.js';

/**
 * The raw tables (kit migrations 001, each PARTITION BY toYYYYMM(timestamp)) and the rollups their
 * views fill (003, 004, 006, 009, each PARTITION BY toYYYYMM(period)).
 */
const COMPACTED: readonly string[] = [
  ...['play_logs', 'ping_logs', 'event_logs', 'impressions', 'audit_events'],
  ...Object.values(ROLLUPS_OF).flatMap((specs) => specs.map((s) => s.rollup)),
];

/** `YYYYMM` of an instant in UTC: the tables' partition id (PARTITION BY toYYYYMM(timestamp or period)). */
export const monthPartition = (at: Date): number => at.getUTCFullYear() * 100 + at.getUTCMonth() + 1;

/**
 * Merges every closed month of the raw and rollup tables that is not yet one merged part; returns
 * them as `table:partition`, in the order merged.
 */
export async function compactClosedPartitions(store: Pick<AnalyticsStore, 'query' | 'exec'>, now: Date = new Date()): Promise<string[]> {
  const rows = await store.query<{ table: string; partition_id: string }>(
    `SELECT table, partition_id FROM system.parts
WHERE database = currentDatabase() AND active AND has({tables:Array(String)}, table)
GROUP BY table, partition_id
HAVING (count() > 1 OR max(level) = 0) AND toUInt32OrZero(partition_id) BETWEEN 1 AND {month:UInt32} - 1
ORDER BY table, partition_id`,
    { tables: [...COMPACTED], month: monthPartition(now) },
  );
  const done: string[] = [];
  for (const r of rows) {
    // Both come from the fixed list and a YYYYMM id checked here: nothing else reaches the text.
    if (!COMPACTED.includes(r.table) || !/^\d{6}$/.test(r.partition_id)) continue;
    await store.exec(`OPTIMIZE TABLE ${r.table} PARTITION ID '${r.partition_id}' FINAL`);
    done.push(`${r.table}:${r.partition_id}`);
  }
  return done;
}

export interface Compaction {
  /** Stops the timer; resolves when a run in flight has ended. */
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;

/**
 * `everyMs` 0: never (nothing scheduled). The finished days' visitors are counted every
 * `countEveryMs` (default: hourly, or every `everyMs` when shorter), so a day is counted within two
 * hours of its end.
 */
export function startCompaction(o: {
  analytics: Pick<AnalyticsStore, 'query' | 'exec'>;
  logger: Logger;
  everyMs?: number;
  firstMs?: number;
  countEveryMs?: number;
}): Compaction {
  if (o.everyMs === 0) return { close: () => Promise.resolve() };
  let closed = false;
  const timers: NodeJS.Timeout[] = [];
  const inFlight = new Set<Promise<void>>();
  /** Runs `job` after firstMs, then every `everyMs`; a tick while the run before is in flight is skipped. */
  const periodic = (job: () => Promise<void>, failed: string, everyMs: number) => {
    let running: Promise<void> | undefined;
    const tick = () => {
      if (running || closed) return;
      const run: Promise<void> = job()
        .catch((err: unknown) => {
          if (!closed) o.logger.warn({ err }, failed);
        })
        .finally(() => {
          inFlight.delete(run);
          running = undefined;
        });
      running = run;
      inFlight.add(run);
    };
    timers.push(setTimeout(tick, o.firstMs ?? 60_000), setInterval(tick, everyMs));
  };
  const everyMs = o.everyMs ?? 6 * HOUR_MS;
  periodic(
    async () => {
      const t = Date.now();
      const merged = await compactClosedPartitions(o.analytics);
      if (merged.length) o.logger.info({ merged, ms: Date.now() - t }, 'analytics: closed months compacted');
    },
    'analytics: compacting closed months failed; tried again at the next run',
    everyMs,
  );
  periodic(
    async () => {
      const t = Date.now();
      await countVisitorDays(o.analytics);
      o.logger.debug({ ms: Date.now() - t }, 'analytics: unique visitors of the finished days counted');
    },
    "analytics: counting the finished days' visitors failed; tried again at the next run",
    o.countEveryMs ?? Math.min(everyMs, HOUR_MS),
  );
  for (const t of timers) t.unref();
  return {
    close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      return Promise.all([...inFlight]).then(() => undefined);
    },
  };
}
