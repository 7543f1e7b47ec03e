/**
 * The rows of one export, read once: each SQL row becomes typed cells and its canonical text line,
 * and the tally keeps what the file prints after the rows (count, totals, digest, chart series).
 *
 * Digest: SHA-256 (hex) over one line per row, in the file's row order, made of the report's
 * digest columns only (ReportDefinition.digest: the facts of a row that cannot change later, e.g.
 * a play's id, device id, file id, recorded file name, start, duration, playlist and schedule ids;
 * never a name looked up at export time, which a rename would change). Each line is those fields
 * in that order, joined by commas and ended by "\n", each field exactly as the CSV prints it
 * (RFC 4180 quoting; text starting with =, +, -, @, tab or CR prefixed with an apostrophe;
 * numbers and ISO 8601 instants as they are). `digestRule` is that sentence for the file, so a
 * reader of any format (CSV, EXCEL, PDF print it) can recompute the digest from the rows; a later
 * re-export of the same plays prints the same digest whatever was renamed in between.
 * Totals: integers summed exactly; seconds summed in whole milliseconds (cells carry at most three
 * decimals), so a total equals the sum of the printed rows.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Cell, ReportChart, ReportColumn, ReportInterval } from './report.js';

const FORMULA = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A text cell a spreadsheet would run as a formula gets a leading apostrophe (OWASP CSV injection). */
export const escapeFormula = (v: string): string => (FORMULA.test(v) ? `'${v}` : v);

export const csvField = (v: string): string => (NEEDS_QUOTES.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

export const csvLine = (fields: readonly string[]): string => fields.map(csvField).join(',') + '\r\n';

const PERIOD_CHARS: Record<ReportInterval, number> = { Minute: 16, Hour: 13, Day: 10, Month: 7 };

export interface ReportBatch {
  cells: Cell[][];
  /** The batch's CSV lines (each CRLF-terminated), joined. */
  text: string;
}

export interface ReportTotals {
  column: ReportColumn;
  value: number;
}

export class ReportTally {
  rows = 0;
  private readonly hash: Hash = createHash('sha256');
  private readonly sums: number[];
  private readonly chartAt: number;
  private readonly chartValueAt: number;
  private readonly series = new Map<string, { sum: number; n: number }>();

  /** Positions of the digest columns, in digest order. */
  private readonly digestAt: number[];

  constructor(
    private readonly columns: readonly ReportColumn[],
    private readonly chart: ReportChart,
    private readonly interval: ReportInterval,
    /** The digest columns' keys, in order (default: every column). */
    digest: readonly string[] = columns.map((c) => c.key),
  ) {
    this.sums = columns.map(() => 0);
    this.digestAt = digest.map((key) => {
      const i = columns.findIndex((c) => c.key === key);
      if (i < 0) throw new Error(`digest column '${key}' is not a column`);
      return i;
    });
    this.chartAt = columns.findIndex((c) => c.key === chart.category);
    this.chartValueAt = columns.findIndex((c) => c.key === chart.value);
  }

  /**
   * Turns SQL rows (objects keyed by column key) into a batch and counts it in. The hot path of a
   * large export: each line is built by concatenation, and only text cells go through the
   * formula and quoting checks (numbers and ISO instants need neither). `keepCells: false` (CSV)
   * skips the typed cells no writer reads.
   */
  take(rows: readonly Record<string, unknown>[], keepCells = true): ReportBatch {
    const cols = this.columns;
    const n = cols.length;
    const cells: Cell[][] = keepCells ? new Array(rows.length) : [];
    let text = '';
    let digested = '';
    const fields: string[] = new Array(n);
    const digestAt = this.digestAt;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const out: Cell[] | null = keepCells || this.chartAt >= 0 ? new Array(n) : null;
      let line = '';
      for (let i = 0; i < n; i++) {
        const col = cols[i]!;
        const raw = row[col.key];
        const v: Cell = typeof raw === 'number' ? raw : raw === null || raw === undefined ? '' : String(raw);
        if (out) out[i] = v;
        const field = col.type === 'text' ? csvField(escapeFormula(v as string)) : typeof v === 'number' ? String(v) : csvField(v);
        fields[i] = field;
        if (i > 0) line += ',';
        line += field;
        if (col.total) this.sums[i]! += col.type === 'seconds' ? Math.round(Number(v) * 1000) : Number(v);
        else if (col.average) this.sums[i]! += Number(v);
      }
      text += line + '\r\n';
      for (let d = 0; d < digestAt.length; d++) digested += (d > 0 ? ',' : '') + fields[digestAt[d]!]!;
      digested += '\n';
      if (keepCells) cells[r] = out!;
      if (this.chartAt >= 0) {
        const key = String(out![this.chartAt]).slice(0, PERIOD_CHARS[this.interval]);
        const point = this.series.get(key) ?? { sum: 0, n: 0 };
        point.sum += this.chart.aggregate === 'count' ? 1 : Number(out![this.chartValueAt] ?? 0);
        point.n++;
        this.series.set(key, point);
      }
    }
    // One hash update per batch: SHA-256 over the concatenation is the hash of the lines in order.
    this.hash.update(digested);
    this.rows += rows.length;
    return { cells, text };
  }

  /** What the digest covers and how to recompute it, as the file prints it. */
  digestRule(): string {
    const titles = this.digestAt.map((i) => this.columns[i]!.title).join(', ');
    return `SHA-256 (hex) over one line per row, in row order, of the columns ${titles} (in this order): the fields joined by commas, each line ended by \\n, each field as this report's CSV prints it (RFC 4180 quoting; text starting with =, +, -, @, tab or CR prefixed with an apostrophe; numbers and UTC instants as printed)`;
  }

  /** Hex SHA-256 of every row's digest line so far; call once, after the last batch. */
  digest(): string {
    return this.hash.digest('hex');
  }

  totals(): ReportTotals[] {
    return this.columns.flatMap((column, i) => (column.total ? [{ column, value: column.type === 'seconds' ? this.sums[i]! / 1000 : this.sums[i]! }] : []));
  }

  /** The means of the `average` columns over the rows (0 without rows), to two decimals. */
  averages(): ReportTotals[] {
    return this.columns.flatMap((column, i) =>
      column.average && !column.total ? [{ column, value: this.rows === 0 ? 0 : Math.round((this.sums[i]! / this.rows) * 100) / 100 }] : [],
    );
  }

  /**
   * The chart's points in period order, one per period of [from, to) (UTC): a period without rows
   * is a zero, so the chart's time axis is even. Periods are bounded by the request's checks.
   */
  chartPoints(from: Date, to: Date): { label: string; value: number }[] {
    const labels: string[] = [];
    const chars = PERIOD_CHARS[this.interval];
    const t = new Date(from);
    if (this.interval === 'Month') t.setUTCDate(1);
    if (this.interval !== 'Minute') t.setUTCMinutes(0, 0, 0);
    else t.setUTCSeconds(0, 0);
    if (this.interval === 'Day' || this.interval === 'Month') t.setUTCHours(0);
    while (t < to && labels.length <= 10_000) {
      labels.push(t.toISOString().slice(0, chars));
      if (this.interval === 'Month') t.setUTCMonth(t.getUTCMonth() + 1);
      else t.setTime(t.getTime() + { Minute: 60_000, Hour: 3_600_000, Day: 86_400_000 }[this.interval]);
    }
    return labels.map((label) => {
      const p = this.series.get(label);
      return { label, value: !p ? 0 : this.chart.aggregate === 'avg' ? p.sum / p.n : p.sum };
    });
  }
}
