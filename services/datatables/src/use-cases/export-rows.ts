/**
 * CSV export: RFC 4180 through csv-stringify, UTF-8, a header row of column keys, then every row
 * in row order read in chunks of 1000 through the `order` index, so memory stays bounded
 * whatever the table size. Text cells that a spreadsheet would run as a formula (leading =, +,
 * -, @, tab or CR) are prefixed with ' (OWASP CSV injection); numbers stay numbers.
 */
import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Principal } from '@pylon/kit';
import type { Cell } from '../domain/data-table.js';
import type { DataTablesRuntime } from '../runtime.js';
import { getDataTable } from './get-data-table.js';

const FORMULA = /^[=+\-@\t\r]/;

export function escapeCell(v: Cell): string {
  if (v === null) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return FORMULA.test(v) ? `'${v}` : v;
}

/** The table's rows as a stream of CSV text (checks the table first, so errors come before any byte). */
export async function exportRowsCsv(rt: DataTablesRuntime, principal: Principal, tableId: string): Promise<Readable> {
  const table = await getDataTable(rt.repo, principal, tableId);
  const keys = table.columns.map((c) => c.key);
  const rows = rt.repo.allRows(principal.accountId, table.id);
  async function* records(): AsyncGenerator<string[]> {
    yield keys;
    for await (const chunk of rows) for (const row of chunk) yield keys.map((k) => escapeCell(row.data[k] ?? null));
  }
  // pipeline, not pipe: a read failure mid-export reaches the consumer as an error on the CSV stream
  // (never an unhandled 'error' event), and a consumer that goes away stops the reads.
  return pipeline(Readable.from(records()), stringify({ record_delimiter: 'windows', quoted_match: /[",\r\n]/ }), () => undefined);
}

export async function exportRowsCsvText(rt: DataTablesRuntime, principal: Principal, tableId: string): Promise<string> {
  const stream = await exportRowsCsv(rt, principal, tableId);
  const parts: string[] = [];
  for await (const chunk of stream) parts.push(String(chunk));
  return parts.join('');
}
