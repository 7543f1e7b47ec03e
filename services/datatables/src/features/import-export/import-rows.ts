/**
 * CSV import: the first record names columns by key or by name (case-insensitive); each further
 * record becomes a row, validated and coerced like any other write. Rows go to the store in
 * chunks of 1000 (one insertMany, one version insertMany, one table update per chunk, committed together; the next chunk is parsed while one is written), so memory
 * stays bounded and a 100k-row file is a few hundred writes. Bad records are reported with their
 * line number and do not stop the others; limits on bytes and rows refuse oversize input.
 */
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { AppError, badInput, type Principal } from '@pylon/kit';
import { sortSlots, validateRowData } from '../../domain/cells.js';
import type { DataTableColumnRecord } from '../../domain/data-table.js';
import { newRowId, type DataTableRowRecord } from '../../shared/data-table.repository.js';
import { rowsChanged, type DataTablesRuntime } from '../../runtime.js';
import { bumped, created } from '../rows/filtered-counts.js';
import { getDataTable } from '../tables/get-data-table.js';
import { SORT_GAP } from '../rows/row-writes.js';

export const IMPORT_LIMITS = { maxRows: 1_000_000, maxBytes: 100 * 1024 * 1024, reportedErrors: 100 } as const;
const CHUNK = 1000;

export interface ImportRowError {
  line: number;
  error: string;
  field: string | null;
}

export interface ImportResult {
  imported: number;
  failed: number;
  errors: ImportRowError[];
}

/** Maps header cells to columns; refuses unknown or repeated ones. */
export function mapHeader(columns: readonly DataTableColumnRecord[], header: readonly unknown[]): Array<DataTableColumnRecord> {
  const used = new Set<string>();
  return header.map((h, i) => {
    const name = String(h ?? '').trim();
    const col = columns.find((c) => c.key === name) ?? columns.find((c) => c.name.toLowerCase() === name.toLowerCase());
    if (!col) throw badInput('header', `header column ${i + 1} '${name}' names no column (known keys: ${columns.map((c) => c.key).join(', ')})`);
    if (used.has(col.key)) throw badInput('header', `header names column '${col.key}' twice`);
    used.add(col.key);
    return col;
  });
}

/** How a job runs an import (see import-job.ts); a plain request passes none. */
export interface ImportOptions {
  /** Records up to this line were committed by an earlier run of the same job: skipped (resume). */
  afterLine?: number;
  /** Row ids derived from the line (a resumed job recognises rows it already wrote). */
  rowId?: (line: number) => string;
  /** Called after each chunk is committed, with the last line it covers and the totals so far. */
  committed?: (c: { line: number; imported: number; failed: number; errors: ImportRowError[] }) => Promise<void>;
  /** Rows a table may hold (DATATABLE_MAX_ROWS). */
  maxTableRows?: number;
}

/**
 * Imports records from any source of records (arrays of cell values with their line numbers):
 * the CSV parser here, the xlsx reader of the REST import.
 */
export async function importRecords(
  rt: DataTablesRuntime,
  principal: Principal,
  tableId: string,
  records: AsyncIterable<{ line: number; cells: unknown[] }>,
  o: ImportOptions = {},
): Promise<ImportResult> {
  const tenant = principal.accountId;
  let table = await getDataTable(rt.repo, principal, tableId);
  let header: DataTableColumnRecord[] | null = null;
  let next = ((await rt.repo.lastSortOrder(tenant, table.id)) ?? 0) + SORT_GAP;
  const result: ImportResult = { imported: 0, failed: 0, errors: [] };
  const maxTableRows = o.maxTableRows ?? rt.maxTableRows ?? Number.MAX_SAFE_INTEGER;
  let pending: Array<DataTableRowRecord & { id: string }> = [];
  let count = 0;
  let line = 0;
  let reported = 0;
  // One datatable.rows_changed for the whole import (the first 100 ids, and how many).
  const importedIds: string[] = [];
  let importedCount = 0;
  // A resumed job's first chunk may have been committed before its checkpoint was saved.
  let mayExist = (o.afterLine ?? 0) > 0;
  // One chunk is written while the next is parsed and validated; at most one write in flight.
  let inFlight: Promise<void> = Promise.resolve();
  const flush = async () => {
    if (pending.length === 0 && !o.committed) return;
    let chunk = pending;
    pending = [];
    const at = { line, failed: result.failed, errors: result.errors.slice(reported) };
    reported = result.errors.length;
    await inFlight;
    if (mayExist && chunk.length) {
      mayExist = false;
      const there = new Set(
        await rt.repo.existingRowIds(
          tenant,
          chunk.map((r) => r.id),
        ),
      );
      result.imported += there.size;
      chunk = chunk.filter((r) => !there.has(r.id));
    }
    if ((table.rowCount ?? 0) + chunk.length > maxTableRows) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `a table holds at most ${maxTableRows} rows (DATATABLE_MAX_ROWS); rows up to line ${at.line - chunk.length} were imported`,
        {
          field: 'file',
        },
      );
    }
    inFlight = rt.counts
      .write(
        tenant,
        table.id,
        () => rt.repo.appendRows(tenant, table, chunk, principal.userId),
        (r) => bumped(r.table, created(r.rows)),
      )
      .then(async (done) => {
        result.imported += done.rows.length;
        importedIds.push(...done.rows.slice(0, 100 - importedIds.length).map((r) => r.id));
        importedCount += done.rows.length;
        table = done.table;
        await o.committed?.({ line: at.line, imported: result.imported, failed: at.failed, errors: at.errors });
      });
    inFlight.catch(() => undefined);
  };
  try {
    for await (const record of records) {
      const cells = record.cells;
      if (!header) {
        header = mapHeader(table.columns, cells);
        continue;
      }
      line = record.line;
      if (o.afterLine !== undefined && line <= o.afterLine) continue;
      if (cells.every((c) => c === null || c === undefined || c === '')) continue;
      if (++count > IMPORT_LIMITS.maxRows)
        throw new AppError('PAYLOAD_TOO_LARGE', `an import holds at most ${IMPORT_LIMITS.maxRows} rows; rows up to line ${line - 1} were imported`, {
          field: 'file',
        });
      try {
        if (cells.length > header.length) throw badInput('data', `line has ${cells.length} cells, the header ${header.length}`);
        const data: Record<string, unknown> = {};
        header.forEach((col, i) => {
          data[col.key] = cells[i] ?? null;
        });
        const clean = validateRowData(table.columns, data);
        pending.push({
          id: o.rowId ? o.rowId(line) : newRowId(),
          tableId: table.id,
          sortOrder: next,
          data: clean,
          ix: sortSlots(table.columns, clean),
          rev: 1,
        });
        next += SORT_GAP;
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        result.failed++;
        if (result.errors.length < IMPORT_LIMITS.reportedErrors)
          result.errors.push({ line, error: e.message, field: typeof e.details.field === 'string' ? e.details.field : null });
      }
      if (pending.length >= CHUNK) await flush();
    }
    await flush();
    await inFlight;
  } finally {
    // Rows stored before a failure are announced too.
    rowsChanged(rt, tenant, table.id, 'imported', importedIds, importedCount);
  }
  if (!header) throw badInput('csv', 'the file is empty: the first line must name the columns');
  return result;
}

/** CSV text or a byte stream of it; the byte limit is enforced while streaming. */
export async function importRowsCsv(
  rt: DataTablesRuntime,
  principal: Principal,
  tableId: string,
  source: string | Readable,
  options: ImportOptions = {},
): Promise<ImportResult> {
  if (typeof source === 'string' && Buffer.byteLength(source) > IMPORT_LIMITS.maxBytes) {
    throw new AppError('PAYLOAD_TOO_LARGE', `an import is at most ${IMPORT_LIMITS.maxBytes} bytes`, { field: 'csv' });
  }
  const input = typeof source === 'string' ? Readable.from([source]) : source;
  const parser = parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: true, max_record_size: 1024 * 1024 });
  let bytes = 0;
  input.on('data', (chunk: Buffer | string) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (bytes > IMPORT_LIMITS.maxBytes)
      input.destroy(new AppError('PAYLOAD_TOO_LARGE', `an import is at most ${IMPORT_LIMITS.maxBytes} bytes`, { field: 'file' }));
  });
  input.on('error', (e) => parser.destroy(e));
  // Parsing starts now, before the table is read and iteration begins: a malformed line found
  // meanwhile must not be an unhandled 'error' event (it would end the process). The parser keeps
  // it and the loop below throws it when it reads on.
  parser.on('error', () => undefined);
  input.pipe(parser);
  async function* records(): AsyncGenerator<{ line: number; cells: unknown[] }> {
    try {
      for await (const r of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) yield { line: r.info.lines, cells: r.record };
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw badInput('csv', `the CSV is malformed: ${(e as Error).message}`);
    }
  }
  return importRecords(rt, principal, tableId, records(), options);
}
