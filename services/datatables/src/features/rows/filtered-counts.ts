/**
 * Filtered row counts kept exact across this process's writes, so the first page of a filter after
 * a write does not recount the table (seconds at a million rows; REST and legacy answer
 * total_count on every page).
 *
 * Counts are remembered per table at the generation they were read at (every write bumps it by
 * one). A write made through this process reports the rows it changed (data before and after) and
 * the generation its bump produced; when the table's counts are at the generation just before,
 * each is adjusted by the changed rows leaving or entering its filter (`rowMatches`, held to the
 * store's answers by a property test) and moves to the new generation. Anything else (a write
 * through another replica, writes finishing out of order, a column change, a failed write) leaves
 * them behind and the next read counts afresh.
 *
 * A count is remembered only when no write of this process to the table ran while it was read, so
 * a remembered count never already includes a write whose change is applied to it afterwards.
 */
import type { RowData } from '../../domain/data-table.js';
import type { RowCondition } from '../../domain/row-query.js';
import { rowMatches } from '../../domain/row-match.js';

/** A row as one write left it: data before (null: created) and after (null: deleted). */
export interface RowChange {
  before: RowData | null;
  after: RowData | null;
}

/**
 * What a write did to a table: the generation its bump produced and the rows it changed;
 * 'unchanged': nothing was written (no bump); null: unknown (forget the counts).
 */
export type WriteOutcome = { generation: number; changes: readonly RowChange[] } | 'unchanged' | null;

interface TableCounts {
  generation: number;
  counts: Map<string, { conditions: readonly RowCondition[]; n: number }>;
}

const MAX_TABLES = 1000;
const MAX_FILTERS_PER_TABLE = 32;

export class FilteredCounts {
  /** `afterWrite`: told of every write that changed a table (table-changes.ts announces it to screens). */
  constructor(private readonly hooks: { afterWrite?: (tenant: string, tableId: string) => void } = {}) {}

  private readonly tables = new Map<string, TableCounts>();
  /** Writes in flight per table. */
  private readonly writing = new Map<string, number>();
  /** Counts being read per table; a write starting marks them stale (not to be remembered). */
  private readonly reading = new Map<string, Set<{ stale: boolean }>>();

  /** The remembered count of `filterKey` at exactly this generation of the table. */
  get(tenant: string, tableId: string, generation: number, filterKey: string): number | undefined {
    const t = this.tables.get(`${tenant}:${tableId}`);
    return t && t.generation === generation ? t.counts.get(filterKey)?.n : undefined;
  }

  /**
   * Call before reading a count of the table at `generation`; call the function it returns with the
   * result (or without one, when the read failed). It remembers the count unless a write of this
   * process to the table ran meanwhile.
   */
  counting(tenant: string, tableId: string, generation: number, filterKey: string, conditions: readonly RowCondition[]): (n?: number) => void {
    const k = `${tenant}:${tableId}`;
    const read = { stale: (this.writing.get(k) ?? 0) > 0 };
    const readers = this.reading.get(k) ?? new Set();
    this.reading.set(k, readers.add(read));
    return (n) => {
      readers.delete(read);
      if (readers.size === 0 && this.reading.get(k) === readers) this.reading.delete(k);
      if (n === undefined || read.stale) return;
      let t = this.tables.get(k);
      if (!t || t.generation !== generation) {
        if (t && t.generation > generation) return; // a newer generation's counts are kept
        t = { generation, counts: new Map() };
        this.tables.delete(k);
        if (this.tables.size >= MAX_TABLES) this.tables.delete(this.tables.keys().next().value as string);
        this.tables.set(k, t);
      }
      if (!t.counts.has(filterKey) && t.counts.size >= MAX_FILTERS_PER_TABLE) t.counts.delete(t.counts.keys().next().value as string);
      t.counts.set(filterKey, { conditions, n });
    };
  }

  /** Runs a write to the table; its outcome moves the table's counts to the new generation, or forgets them. */
  async write<T>(tenant: string, tableId: string, run: () => Promise<T>, outcome: (result: T) => WriteOutcome): Promise<T> {
    const k = `${tenant}:${tableId}`;
    this.writing.set(k, (this.writing.get(k) ?? 0) + 1);
    for (const read of this.reading.get(k) ?? []) read.stale = true;
    try {
      const result = await run();
      const o = outcome(result);
      this.apply(k, o);
      if (o !== 'unchanged') this.hooks.afterWrite?.(tenant, tableId);
      return result;
    } catch (e) {
      this.tables.delete(k);
      throw e;
    } finally {
      const left = (this.writing.get(k) ?? 1) - 1;
      if (left > 0) this.writing.set(k, left);
      else this.writing.delete(k);
    }
  }

  private apply(k: string, o: WriteOutcome): void {
    const t = this.tables.get(k);
    if (!t || o === 'unchanged') return;
    if (!o || t.generation !== o.generation - 1) {
      this.tables.delete(k);
      return;
    }
    for (const c of t.counts.values()) {
      for (const { before, after } of o.changes)
        c.n += (after && rowMatches(c.conditions, after) ? 1 : 0) - (before && rowMatches(c.conditions, before) ? 1 : 0);
    }
    t.generation = o.generation;
  }
}

/** The outcome of a write whose generation bump returned `table` (null: the table went meanwhile). */
export const bumped = (table: { generation?: number | null } | null, changes: readonly RowChange[]): WriteOutcome =>
  table ? { generation: table.generation ?? 0, changes } : null;

/** Rows created (no data before). */
export const created = (rows: readonly { data: RowData }[]): RowChange[] => rows.map((r) => ({ before: null, after: r.data }));
