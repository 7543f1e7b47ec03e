/**
 * Retention of the raw analytics tables: a ClickHouse TTL per table family, set from the settings
 * (ANALYTICS_RAW_TTL_DAYS and the per-family ANALYTICS_*_TTL_DAYS) by the migration runner after
 * the numbered migrations, on chDB and the server alike (the same SQL). 0 days = keep forever
 * (the TTL is removed). The rollups (003_rollups.sql) have no TTL: they keep the history the raw
 * rows no longer hold, so dashboards over old periods still answer (from the rollups) once the
 * raw rows are gone; queries only raw rows can answer (logs, minute periods of a rollup-less
 * family) see what is left.
 *
 * A TTL is only changed when it differs from what the table has (read from system.tables), since
 * changing it makes ClickHouse recompute it for every existing part.
 */
import { AppError } from '@pylon/kit/errors';
import type { AnalyticsStore } from '@pylon/kit/ports/analytics';

/** The raw tables, by family; every one has a `timestamp DateTime64(3, 'UTC')` column. */
export const RAW_TABLES = {
  play: 'play_logs',
  ping: 'ping_logs',
  event: 'event_logs',
  impression: 'impressions',
  audit: 'audit_events',
} as const;

export type RawTableFamily = keyof typeof RAW_TABLES;

/** Days each family keeps its raw rows; 0 (or absent) = keep forever. */
export type RetentionDays = Partial<Record<RawTableFamily, number>>;

/** At most 100 years: a mistyped value must not overflow the date arithmetic. */
export const MAX_RETENTION_DAYS = 36_500;

/** The TTL expression for `days` exactly as ClickHouse prints it in system.tables.engine_full (null: none). */
export function ttlExpression(days: number): string | null {
  if (!Number.isInteger(days) || days < 0 || days > MAX_RETENTION_DAYS) {
    throw new AppError('INTERNAL', `retention days must be an integer from 0 to ${MAX_RETENTION_DAYS}, got ${days}`);
  }
  return days === 0 ? null : `toDateTime(timestamp) + toIntervalDay(${days})`;
}

/** The TTL clause of a table's engine_full ('' when it has none). */
export function currentTtl(engineFull: string): string | null {
  const m = / TTL (.+?)(?: SETTINGS |$)/.exec(engineFull);
  return m?.[1]?.trim() ?? null;
}

/**
 * Sets each raw table's TTL to what `days` says (absent families are left as they are); returns
 * the tables it changed, as `table: expression` (or `table: none`).
 */
export async function applyRetention(target: Pick<AnalyticsStore, 'query' | 'exec'>, days: RetentionDays): Promise<string[]> {
  const wanted = (Object.entries(days) as [RawTableFamily, number | undefined][]).filter(([, d]) => d !== undefined) as [RawTableFamily, number][];
  if (wanted.length === 0) return [];
  const rows = await target.query<{ name: string; engine_full: string }>(
    'SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND has({names:Array(String)}, name)',
    { names: wanted.map(([f]) => RAW_TABLES[f]) },
  );
  const engines = new Map(rows.map((r) => [r.name, r.engine_full]));
  const changed: string[] = [];
  for (const [family, d] of wanted) {
    const table = RAW_TABLES[family];
    const engine = engines.get(table);
    if (engine === undefined) throw new AppError('INTERNAL', `analytics table ${table} does not exist; run the migrations first`);
    const want = ttlExpression(d);
    const have = currentTtl(engine);
    if (want === have) continue;
    // Table names come from RAW_TABLES and the expression from an integer: nothing user-given is spliced.
    await target.exec(want ? `ALTER TABLE ${table} MODIFY TTL ${want}` : `ALTER TABLE ${table} REMOVE TTL`);
    changed.push(`${table}: ${want ?? 'none'}`);
  }
  return changed;
}
