/**
 * CSV answers for spreadsheets and BI tools: RFC 4180, UTF-8, CRLF, a header row, produced row by
 * row as a stream. Text cells that a spreadsheet would run as a formula (leading =, +, -, @, tab
 * or CR) are prefixed with ' (SECURITY.md, CSV formula injection); numbers stay numbers.
 */
import { Readable } from 'node:stream';
import type { JsonObject } from '@pylon/kit';

const FORMULA = /^[=+\-@\t\r]/;
const QUOTE = /[",\r\n]/;

export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (FORMULA.test(s)) s = `'${s}`;
  return QUOTE.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Does the Accept header ask for CSV before JSON? */
export function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  const csv = types.indexOf('text/csv');
  const json = types.findIndex((t) => t === 'application/json' || t === '*/*' || t === 'application/*');
  return csv >= 0 && (json < 0 || csv < json);
}

/** The rows as a CSV stream under the header `columns` (absent: the first row's keys), so an empty result still has its header. */
export function csvStream(rows: readonly Readonly<JsonObject>[], columns: readonly string[]): Readable {
  const keys = columns.length ? [...columns] : rows.length ? Object.keys(rows[0]!) : [];
  function* lines(): Generator<string> {
    yield keys.map(csvCell).join(',') + '\r\n';
    for (const r of rows) yield keys.map((k) => csvCell(r[k])).join(',') + '\r\n';
  }
  return Readable.from(lines());
}
