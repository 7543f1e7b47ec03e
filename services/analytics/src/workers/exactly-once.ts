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
 * so a partition (Kafka) or a topic (embedded) is consumed by one member of the group at a time,
 * and a member that lost its batch to another (rebalance, Redis Streams claim) stops at its next
 * lease check (BatchContext.heartbeat, before every store call: ingest.ts); what remains is a stall
 * between that check and the call (docs/operations/delivery-guarantees.md).
 * A consumer process that dies between the raw part and the rollup parts of one insert loses the
 * plan; its redelivery finds the records stored and drops them, and rollup-repair.ts then completes
 * the rollups from the raw table.
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

/**
 * A timestamp as the store answers it (ISO 8601 in UTC with milliseconds, `...T...:...:....sssZ`,
 * the form the player API and the publishers write), or undefined when it does not parse.
 */
function stampOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length === 24 && value.charCodeAt(23) === 90 && value.charCodeAt(10) === 84 && value.charCodeAt(19) === 46) {
    return value;
  }
  const t = Date.parse(String(value));
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
}

/** A group's values (account, then device or file) as one string. */
function groupOf(spec: TableKey, row: Row): string {
  const g = spec.group;
  return g.length === 2 ? `${String(row[g[0]!] ?? '')}${SEP}${String(row[g[1]!] ?? '')}` : String(row[g[0]!] ?? '');
}

export interface Candidates {
  rows: Row[];
  /** rows[i]'s key: group, timestamp and id (undefined: not deduplicated, the store will judge the row). */
  keys: (string | undefined)[];
  /** rows[i]'s group and timestamp (when it has a key). */
  groups: string[];
  stamps: string[];
  /** Records dropped because an earlier one of the batch had the same key. */
  repeated: number;
}

/** Step 1: the batch without its repeats (the first of each key is kept). */
export function uniqueRows(table: string, rows: Row[]): Candidates {
  const spec = TABLE_KEYS[table];
  if (!spec) return { rows, keys: rows.map(() => undefined), groups: [], stamps: [], repeated: 0 };
  const seen = new Set<string>();
  const out: Row[] = [];
  const keys: (string | undefined)[] = [];
  const groups: string[] = [];
  const stamps: string[] = [];
  for (const row of rows) {
    const stamp = stampOf(row.timestamp);
    const group = groupOf(spec, row);
    const key = stamp === undefined ? undefined : `${group}${SEP}${stamp}${SEP}${String(row[spec.id] ?? '')}`;
    if (key !== undefined) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(row);
    keys.push(key);
    groups.push(group);
    stamps.push(stamp ?? '');
  }
  return { rows: out, keys, groups, stamps, repeated: rows.length - out.length };
}

/** A group's (account and device or file) time range in a batch (ISO stamps: text order is time order), and its rows. */
interface GroupRange {
  values: string[];
  from: string;
  to: string;
  rows: number[];
}

/**
 * Most groups or ids one lookup binds. Query parameters must stay small: @clickhouse/client sends
 * them in the URL (the server refuses a URI over `http_max_uri_size`, 1 MiB by default), and chDB's
 * `IN` over an array parameter of about 1 MiB falls off a cliff (measured: 30,000 ids in 81 ms,
 * 40,000 in 63 s, one row at a time). A 50,000-record chunk is asked in ten lookups.
 */
export const LOOKUP_VALUES = 5_000;

/**
 * Step 2: which of the candidates' keys the table holds already, through the primary index
 * (account, device or file, timestamp), at most `LOOKUP_VALUES` groups or ids per query:
 * - which groups (an account's device, or file) hold any row inside the batch's own time range for
 *   that group: live traffic from a player comes after what it sent before, so usually none, and
 *   the records of a group without any are all new;
 * - for the groups that do, which of their ids are stored (a redelivered batch, a retried request).
 */
export async function storedKeys(store: Lookups, table: string, c: Pick<Candidates, 'rows' | 'keys' | 'groups' | 'stamps'>): Promise<Set<string>> {
  const spec = TABLE_KEYS[table];
  const found = new Set<string>();
  if (!spec) return found;
  const ranges = new Map<string, GroupRange>();
  for (let i = 0; i < c.rows.length; i++) {
    if (c.keys[i] === undefined) continue;
    const group = c.groups[i]!;
    const stamp = c.stamps[i]!;
    const r = ranges.get(group);
    if (!r) ranges.set(group, { values: group.split(SEP), from: stamp, to: stamp, rows: [i] });
    else {
      if (stamp < r.from) r.from = stamp;
      if (stamp > r.to) r.to = stamp;
      r.rows.push(i);
    }
  }
  if (ranges.size === 0) return found;
  const groupSql = spec.group.length === 1 ? spec.group[0]! : `concat(${spec.group.join(', char(1), ')})`;
  /** The primary-index part of a lookup: the groups' columns and the span of their ranges. */
  const scope = (some: GroupRange[], params: SqlParams): string => {
    const where = spec.group.map((col, g) => {
      params[`g${g}`] = [...new Set(some.map((r) => r.values[g]!))];
      return `${col} IN {g${g}:Array(String)}`;
    });
    params.from = Date.parse(some.reduce((m, r) => (r.from < m ? r.from : m), some[0]!.from));
    params.to = Date.parse(some.reduce((m, r) => (r.to > m ? r.to : m), some[0]!.to));
    return `${where.join(' AND ')}
  AND timestamp >= fromUnixTimestamp64Milli({from:Int64}, 'UTC') AND timestamp <= fromUnixTimestamp64Milli({to:Int64}, 'UTC')`;
  };

  // 1. The groups with a stored row inside their own range.
  const all = [...ranges.entries()];
  const suspects: GroupRange[] = [];
  for (let i = 0; i < all.length; i += LOOKUP_VALUES) {
    const some = all.slice(i, i + LOOKUP_VALUES);
    const p1: SqlParams = { gk: some.map(([k]) => k), lo: some.map(([, r]) => Date.parse(r.from)), hi: some.map(([, r]) => Date.parse(r.to)) };
    const overlapping = await store.query<{ gk: string }>(
      `SELECT DISTINCT ${groupSql} AS gk FROM ${table}
WHERE ${scope(
        some.map(([, r]) => r),
        p1,
      )}
  AND toUnixTimestamp64Milli(timestamp) BETWEEN transform(${groupSql}, {gk:Array(String)}, {lo:Array(Int64)}, toInt64(0))
    AND transform(${groupSql}, {gk:Array(String)}, {hi:Array(Int64)}, toInt64(-1))`,
      p1,
    );
    for (const o of overlapping) {
      const r = ranges.get(o.gk);
      if (r) suspects.push(r);
    }
  }

  // 2. Their stored ids (the timestamp comes back in the same ISO form as the stamps), a slice of
  // groups at a time whose rows hold at most LOOKUP_VALUES ids (a group with more is asked alone, in slices of its ids).
  const ask = async (some: GroupRange[], ids: string[]) => {
    const p2: SqlParams = { ids };
    const rows = await store.query<{ gk: string; t: string; id: string }>(
      `SELECT ${groupSql} AS gk, timestamp AS t, ${spec.id} AS id
FROM ${table}
WHERE ${scope(some, p2)}
  AND ${spec.id} IN {ids:Array(String)}`,
      p2,
    );
    for (const r of rows) found.add(`${r.gk}${SEP}${stampOf(r.t) ?? ''}${SEP}${r.id}`);
  };
  const idsOf = (r: GroupRange) => [...new Set(r.rows.map((i) => String(c.rows[i]![spec.id] ?? '')))];
  let slice: GroupRange[] = [];
  let sliceIds = new Set<string>();
  for (const r of suspects) {
    const ids = idsOf(r);
    if (ids.length > LOOKUP_VALUES) {
      for (let i = 0; i < ids.length; i += LOOKUP_VALUES) await ask([r], ids.slice(i, i + LOOKUP_VALUES));
      continue;
    }
    if (sliceIds.size + ids.length > LOOKUP_VALUES) {
      await ask(slice, [...sliceIds]);
      slice = [];
      sliceIds = new Set();
    }
    slice.push(r);
    for (const id of ids) sliceIds.add(id);
  }
  if (slice.length > 0) await ask(slice, [...sliceIds]);
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
  stored: Row[];
}

type Chunk = Pick<Candidates, 'rows' | 'keys' | 'groups' | 'stamps'> & { token: string; planned?: Planned };

export interface InsertPlan {
  /** The batch's chunks (at most `maxRows` candidates each, with their token), planned lazily by `insert`. */
  chunks: Chunk[];
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
    const u = uniqueRows(table, rows);
    const chunks: Chunk[] = [];
    for (let i = 0; i < u.rows.length; i += maxRows) {
      const keys = u.keys.slice(i, i + maxRows);
      chunks.push({
        rows: u.rows.slice(i, i + maxRows),
        keys,
        groups: u.groups.slice(i, i + maxRows),
        stamps: u.stamps.slice(i, i + maxRows),
        token: insertToken(table, keys),
      });
    }
    const signature = chunks.map((c) => c.token).join(',');
    const previous = pending.get(signature);
    if (previous) return { signature, plan: previous };
    const plan: InsertPlan = { chunks, repeated: u.repeated };
    pending.set(signature, plan);
    while (pending.size > 16) pending.delete(pending.keys().next().value!);
    return { signature, plan };
  }

  return {
    /**
     * Inserts the batch's records not yet stored; `insert` does one store insert (it may throw: the
     * plan is kept for the retry). Answers how many were dropped as repeats, and the records dropped
     * as already stored (whose rollups rollup-repair.ts then checks).
     */
    async insert(
      store: Lookups,
      table: string,
      rows: Row[],
      insert: (rows: Row[], token: string) => Promise<void>,
    ): Promise<{ inserted: number; repeated: number; stored: Row[] }> {
      const { signature, plan } = planOf(table, rows);
      let inserted = 0;
      const stored: Row[] = [];
      for (const chunk of plan.chunks) {
        if (!chunk.planned) {
          const found = await storedKeys(store, table, chunk);
          if (found.size === 0) chunk.planned = { rows: chunk.rows, token: chunk.token, stored: [] };
          else {
            const keep = chunk.keys.map((k) => k === undefined || !found.has(k));
            const fresh = chunk.rows.filter((_, i) => keep[i]);
            chunk.planned = {
              rows: fresh,
              token: insertToken(
                table,
                chunk.keys.filter((_, i) => keep[i]),
              ),
              stored: chunk.rows.filter((_, i) => !keep[i]),
            };
          }
        }
        const p = chunk.planned;
        if (p.rows.length > 0) await insert(p.rows, p.token);
        inserted += p.rows.length;
        for (const r of p.stored) stored.push(r);
      }
      pending.delete(signature);
      return { inserted, repeated: plan.repeated, stored };
    },
  };
}
