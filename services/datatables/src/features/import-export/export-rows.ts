/**
 * CSV export: RFC 4180 through csv-stringify, UTF-8, a header row of column keys, then every row
 * in row order read in chunks of 1000 through the `order` index, so memory stays bounded
 * whatever the table size. Text cells that a spreadsheet would run as a formula (leading =, +,
 * -, @, tab or CR) are prefixed with ' (OWASP CSV injection); numbers stay numbers.
 */
import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { AppError, type Principal } from '@pylon/kit';
import type { Cell } from '../../domain/data-table.js';
import type { DataTablesRuntime } from '../../runtime.js';
import { getDataTable } from '../tables/get-data-table.js';

const FORMULA = /^[=+\-@\t\r]/;

export function escapeCell(v: Cell): string {
  if (v === null) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return FORMULA.test(v) ? `'${v}` : v;
}

/**
 * The table's rows as a stream of CSV text (checks the table first, so errors come before any byte).
 * `progress` is awaited after each chunk of rows with the rows read so far (an export job reports
 * there; a rejection ends the stream with that error).
 */
export async function exportRowsCsv(
  rt: DataTablesRuntime,
  principal: Principal,
  tableId: string,
  o: { progress?: (rowsDone: number) => Promise<void> } = {},
): Promise<Readable> {
  const table = await getDataTable(rt.repo, principal, tableId);
  const keys = table.columns.map((c) => c.key);
  const rows = rt.repo.allRows(principal.accountId, table.id);
  async function* records(): AsyncGenerator<string[]> {
    yield keys;
    let done = 0;
    for await (const chunk of rows) {
      for (const row of chunk) yield keys.map((k) => escapeCell(row.data[k] ?? null));
      done += chunk.length;
      await o.progress?.(done);
    }
  }
  // pipeline, not pipe: a read failure mid-export reaches the consumer as an error on the CSV stream
  // (never an unhandled 'error' event), and a consumer that goes away stops the reads.
  return pipeline(Readable.from(records()), stringify({ record_delimiter: 'windows', quoted_match: /[",\r\n]/ }), () => undefined);
}

/**
 * The GraphQL export answers one string, held whole in memory and in the response: capped at
 * GRAPHQL_EXPORT_MAX_ROWS rows and GRAPHQL_EXPORT_MAX_BYTES of CSV. Larger tables are refused
 * before a row is read (by the table's row count) or as soon as the text passes the byte cap, with
 * a message pointing at the streamed REST export, whose memory stays flat at any size, and at the
 * job API that large imports use.
 */
export const GRAPHQL_EXPORT_MAX_ROWS = 10_000;
export const GRAPHQL_EXPORT_MAX_BYTES = 5 * 1024 * 1024;

const tooLargeForGraphql = (tableId: string, what: string) =>
  new AppError(
    'PAYLOAD_TOO_LARGE',
    `${what}; exportDataTableRows answers at most ${GRAPHQL_EXPORT_MAX_ROWS} rows and ${GRAPHQL_EXPORT_MAX_BYTES / 1024 / 1024} MB as one string: download the streamed CSV at GET /datatables/${tableId}/rows/export instead (with Prefer: respond-async, or over EXPORT_JOB_THRESHOLD_ROWS rows, it answers 202 and runs as a job: follow GET /jobs/{id} or the job query to its signed download link; large imports likewise run as jobs: POST /datatables/${tableId}/rows/import answers 202, follow GET /jobs/{id})`,
    { field: 'tableId' },
  );

export async function exportRowsCsvText(rt: DataTablesRuntime, principal: Principal, tableId: string): Promise<string> {
  const table = await getDataTable(rt.repo, principal, tableId);
  if ((table.rowCount ?? 0) > GRAPHQL_EXPORT_MAX_ROWS) throw tooLargeForGraphql(table.id, `the table has ${table.rowCount} rows`);
  const stream = await exportRowsCsv(rt, principal, table.id);
  const parts: string[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    const text = String(chunk);
    bytes += Buffer.byteLength(text);
    if (bytes > GRAPHQL_EXPORT_MAX_BYTES) {
      stream.destroy();
      throw tooLargeForGraphql(table.id, `the CSV passes ${GRAPHQL_EXPORT_MAX_BYTES / 1024 / 1024} MB`);
    }
    parts.push(text);
  }
  return parts.join('');
}
