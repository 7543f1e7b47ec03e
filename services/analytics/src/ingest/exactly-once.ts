/**
 * Exactly once into the analytics store, rollups included (issue 17d).
 *
 * A raw table is a ReplacingMergeTree: a row whose sorting key is already stored collapses with it
 * on merge. The rollups are fed by materialized views on insert, so they count every row inserted,
 * duplicates too. Telemetry is delivered at least once (a redelivered batch after a crash, a
 * player retrying a request whose 202 it did not see), so the ingest makes its inserts idempotent:
 *
 * 1. Within a batch, a record whose key (the table's sorting key: account, device or file,
 *    timestamp, id) appeared earlier is dropped: the first wins, as it does against the store.
 * 2. The raw table is asked which of the batch's keys it holds already (`storedKeys`: first
 *    which devices or files hold rows inside the batch's time range for them, which live traffic
 *    does not; then, for those only, which of their ids; both through the primary index); those
 *    records are dropped.
 * 3. What remains is inserted with a deduplication token derived from its keys. If the outcome of
 *    that insert is unknown (a timeout, a connection reset, a failure part-way through the views),
 *    the retry of the same batch reuses the same plan (same rows, same token) instead of asking
 *    again, so the store skips each table (raw and every rollup) where the first attempt landed and
 *    completes the others (migration 005 sets the tables' deduplication window).
 *
 * Correct when one consumer at a time handles an account's records: the stream is keyed by account,
 * so a partition (Kafka) or a topic (embedded) is consumed by one member of the group at a time.
 * Left open: a consumer process that dies between the raw part and the rollup parts of one insert
 * loses the plan; its redelivery then finds the records stored and drops them, and the rollups miss
 * them (README "Telemetry pipeline": rebuilding a rollup).
 */
import { createHash } from 'node:crypto';
import type { AnalyticsStore, SqlParams } from '@pylon/kit';

/** The columns that make a row's identity in each raw table (its sorting key, in order). */
interface TableKey {
  /** Columns before the timestamp: the account first, then the device or file. */
  group: readonly string[];
  id: string;
}

const TABLE_KEYS: Record<string, TableKey> = {
  ping_logs: { group: ['account_id', 'device_id'], id: 'id' },
  play_logs: { group: ['account_id', 'device_id'], id: 'id' },
  event_logs: { group: ['account_id', 'device_id'], id: 'id' },
  impressions: { group: ['account_id', 'file_id'], id: 'id' },
  audit_events: { group: ['account_id'], id: 'event_id' },
};

type Row = Record<string, unknown>;
/** What the lookups need of the store. */
export type Lookups = Pick<AnalyticsStore, 'query'>;
const SEP = '\u0001';

/** A row's identity in its table, or undefined when it has none the store would agree on (no parseable timestamp). */
function rowKey(spec: TableKey, row: Row): string | undefined {
  const t = Date.parse(String(row.timestamp));
  if (!Number.isFinite(t)) return undefined;
  let key = '';
  for (const c of spec.group) key += String(row[c] ?? '') + SEP;
  return key + t + SEP + String(row[spec.id] ?? '');
}

export interface Candidates {
  rows: Row[];
  /** rows[i]'s key (undefined: not deduplicated, the store will judge the row). */
  keys: (string | undefined)[];
  /** Records dropped because an earlier one of the batch had the same key. */
  repeated: number;
}

/** Step 1: the batch without its repeats (the first of each key is kept). */
export function uniqueRows(table: string, rows: Row[]): Candidates {
  const spec = TABLE_KEYS[table];
  if (!spec) return { rows, keys: rows.map(() => undefined), repeated: 0 };
  const seen = new Set<string>();
  const out: Row[] = [];
  const keys: (string | undefined)[] = [];
  for (const row of rows) {
    const key = rowKey(spec, row);
    if (key !== undefined) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(row);
    keys.push(key);
  }
  return { rows: out, keys, repeated: rows.length - out.length };
}

/** A group's (account and device or file) time range in a batch, and its rows. */
interface GroupRange {
  values: string[];
  from: number;
  to: number;
  rows: number[];
}

/**
 * Step 2: which of `keys` the table holds already. Two queries at most, both through the primary
 * index (account, device or file, timestamp):
 * - which groups (an account's device, or file) hold any row inside the batch's own time range for
 *   that group: live traffic from a player comes after what it sent before, so usually none, and
 *   the records of a group without any are all new;
 * - for the groups that do, which of their ids are stored (a redelivered batch, a retried request).
 */
export async function storedKeys(store: Lookups, table: string, rows: Row[], keys: (string | undefined)[]): Promise<Set<string>> {
  const spec = TABLE_KEYS[table];
  const found = new Set<string>();
  if (!spec) return found;
  const ranges = new Map<string, GroupRange>();
  rows.forEach((row, i) => {
    const key = keys[i];
    if (key === undefined) return;
    const values = spec.group.map((c) => String(row[c] ?? ''));
    const group = values.join(SEP);
    const t = Date.parse(String(row.timestamp));
    const r = ranges.get(group);
    if (!r) ranges.set(group, { values, from: t, to: t, rows: [i] });
    else {
      if (t < r.from) r.from = t;
      if (t > r.to) r.to = t;
      r.rows.push(i);
    }
  });
  if (ranges.size === 0) return found;
  const groupSql = spec.group.length === 1 ? spec.group[0]! : `concat(${spec.group.join(', char(1), ')})`;
  const scope = (all: GroupRange[], params: SqlParams): string => {
    const where = spec.group.map((c, g) => {
      params[`g${g}`] = [...new Set(all.map((r) => r.values[g]!))];
      return `${c} IN {g${g}:Array(String)}`;
    });
    params.from = all.reduce((m, r) => Math.min(m, r.from), Infinity);
    params.to = all.reduce((m, r) => Math.max(m, r.to), -Infinity);
    return `${where.join(' AND ')}
  AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND timestamp <= fromUnixTimestamp64Milli({to:Int64}, 'UTC')`;
  };

  // 1. The groups with a stored row inside their own range.
  const all = [...ranges.values()];
  const p1: SqlParams = { gk: [...ranges.keys()], lo: all.map((r) => r.from), hi: all.map((r) => r.to) };
  const overlapping = await store.query<{ gk: string }>(
    `SELECT DISTINCT ${groupSql} AS gk FROM ${table}
WHERE ${scope(all, p1)}
  AND toUnixTimestamp64Milli(timestamp) BETWEEN transform(${groupSql}, {gk:Array(String)}, {lo:Array(Int64)}, toInt64(0))
    AND transform(${groupSql}, {gk:Array(String)}, {hi:Array(Int64)}, toInt64(-1))`,
    p1,
  );
  if (overlapping.length === 0) return found;

  // 2. Their stored ids.
  const suspects = overlapping.map((o) => ranges.get(o.gk)).filter((r): r is GroupRange => r !== undefined);
  const p2: SqlParams = {};
  const ids = new Set<string>();
  for (const r of suspects) for (const i of r.rows) ids.add(String(rows[i]![spec.id] ?? ''));
  p2.ids = [...ids];
  const sql = `SELECT ${spec.group.map((c, g) => `${c} AS g${g}`).join(', ')}, toUnixTimestamp64Milli(timestamp) AS t, ${spec.id} AS id
FROM ${table}
WHERE ${scope(suspects, p2)}
  AND ${spec.id} IN {ids:Array(String)}`;
  for (const r of await store.query<Record<string, unknown>>(sql, p2)) {
    let key = '';
    for (let g = 0; g < spec.group.length; g++) key += String(r[`g${g}`]) + SEP;
    found.add(key + Number(r.t) + SEP + String(r.id));
  }
  return found;
}

/** The deduplication token of an insert: a digest of its table and its rows' keys (the same rows give the same token). */
export function insertToken(table: string, keys: readonly (string | undefined)[]): string {
  const h = createHash('sha256').update(table);
  const parts: string[] = [];
  for (const k of keys) {
    parts.push(k ?? '?');
    if (parts.length === 1000) h.update(`\n${parts.splice(0).join('\n')}`);
  }
  if (parts.length > 0) h.update(`\n${parts.join('\n')}`);
  return `ingest:${table}:${keys.length}:${h.digest('hex')}`;
}

/** One planned insert: the rows still to insert after step 2 and their token; undefined until planned. */
interface Planned {
  rows: Row[];
  token: string;
  /** Records of the chunk dropped as already stored. */
  stored: number;
}

export interface InsertPlan {
  /** The batch's chunks (at most `maxRows` candidates each), planned lazily by {@link ExactlyOnce.insert}. */
  chunks: { rows: Row[]; keys: (string | undefined)[]; planned?: Planned }[];
  repeated: number;
}

/**
 * Plans and runs a batch's inserts into one table, remembering the plan of a batch whose insert
 * failed so that its retry (the same records) inserts exactly what the first attempt tried, under
 * the same tokens.
 */
export function exactlyOnce(maxRows: number) {
  /**
   * The plans of batches whose inserts failed, by signature (a digest of the batch's table and
   * keys), until their retry succeeds. Batches of several partitions may be in flight at once;
   * the oldest plans are forgotten past a few (their retry then asks the store again).
   */
  const pending = new Map<string, InsertPlan>();

  function planOf(table: string, rows: Row[]): { signature: string; plan: InsertPlan } {
    const unique = uniqueRows(table, rows);
    const signature = insertToken(table, unique.keys);
    const previous = pending.get(signature);
    if (previous) return { signature, plan: previous };
    const plan: InsertPlan = { chunks: [], repeated: unique.repeated };
    for (let i = 0; i < unique.rows.length; i += maxRows) {
      plan.chunks.push({ rows: unique.rows.slice(i, i + maxRows), keys: unique.keys.slice(i, i + maxRows) });
    }
    pending.set(signature, plan);
    while (pending.size > 16) pending.delete(pending.keys().next().value!);
    return { signature, plan };
  }

  return {
    /**
     * Inserts the batch's records not yet stored; `insert` does one store insert (it may throw: the
     * plan is kept for the retry). Answers how many were dropped as repeats and as already stored.
     */
    async insert(
      store: Lookups,
      table: string,
      rows: Row[],
      insert: (rows: Row[], token: string) => Promise<void>,
    ): Promise<{ inserted: number; repeated: number; stored: number }> {
      const { signature, plan } = planOf(table, rows);
      let inserted = 0;
      let stored = 0;
      for (const chunk of plan.chunks) {
        if (!chunk.planned) {
          const found = await storedKeys(store, table, chunk.rows, chunk.keys);
          const keep = chunk.keys.map((k) => k === undefined || !found.has(k));
          const fresh = chunk.rows.filter((_, i) => keep[i]);
          chunk.planned = {
            rows: fresh,
            token: insertToken(
              table,
              chunk.keys.filter((_, i) => keep[i]),
            ),
            stored: chunk.rows.length - fresh.length,
          };
        }
        const p = chunk.planned;
        if (p.rows.length > 0) await insert(p.rows, p.token);
        inserted += p.rows.length;
        stored += p.stored;
      }
      pending.delete(signature);
      return { inserted, repeated: plan.repeated, stored };
    },
  };
}
