/** Creating, changing and deleting table definitions (columns, with row migration). */
import { randomUUID } from 'node:crypto';
import { AppError, badInput, notFound, parseInput, type Principal } from '@pylon/kit';
import { z } from 'zod';
import { coerceCell, sortSlots } from '../../domain/cells.js';
import { COLUMN_TYPES, columnKeyProblem, MAX_COLUMNS, SORT_SLOTS, type Cell, type DataTableColumnRecord, type RowData } from '../../domain/data-table.js';
import type { DataTable } from '../../shared/data-table.repository.js';
import type { DataTablesRuntime } from '../../runtime.js';
import { getDataTable } from './get-data-table.js';

const columnSchema = z.strictObject({
  id: z.string().min(1).max(64).nullish(),
  name: z.string().trim().min(1).max(200),
  key: z.string(),
  type: z.enum(COLUMN_TYPES),
  required: z.boolean().nullish(),
  sortable: z.boolean().nullish(),
  options: z.array(z.string().max(500)).max(500).nullish(),
  default: z.string().max(10_000).nullish(),
});
type ColumnInput = z.infer<typeof columnSchema>;

const ttl = z.number().int().min(0).max(86_400).nullish();

const createSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).nullish(),
  cacheTtlSeconds: ttl,
  columns: z.array(columnSchema).max(MAX_COLUMNS).nullish(),
});

const updateSchema = z.strictObject({
  tableId: z.string().min(1),
  name: z.string().trim().min(1).max(200).nullish(),
  description: z.string().max(2000).nullish(),
  cacheTtlSeconds: ttl,
  columns: z.array(columnSchema).max(MAX_COLUMNS).nullish(),
  onInvalidRows: z.enum(['REFUSE', 'MIGRATE']).nullish(),
});

/** Builds column records from input, keeping ids and sort slots of existing columns. */
function buildColumns(input: readonly ColumnInput[], existing: readonly DataTableColumnRecord[]): DataTableColumnRecord[] {
  const byId = new Map(existing.map((c) => [c.id, c]));
  const keys = new Set<string>();
  const used = new Set<number>();
  const out = input.map((c, i): DataTableColumnRecord => {
    const field = `columns[${i}]`;
    const problem = columnKeyProblem(c.key);
    if (problem) throw badInput(`${field}.key`, `${field}.key ${problem}`);
    if (keys.has(c.key)) throw badInput(`${field}.key`, `${field}.key '${c.key}' is used by another column`);
    keys.add(c.key);
    if (c.id && !byId.has(c.id)) throw badInput(`${field}.id`, `${field}.id '${c.id}' is not a column of this table`);
    const before = c.id ? byId.get(c.id) : undefined;
    const col: DataTableColumnRecord = {
      id: before?.id ?? randomUUID(),
      name: c.name,
      key: c.key,
      type: c.type,
      required: c.required ?? false,
      sortable: c.sortable ?? false,
      options: c.options && c.options.length > 0 ? [...c.options] : null,
      default: c.default ?? null,
      slot: null,
    };
    if (col.default !== null) {
      const r = coerceCell(col, col.default);
      if (!r.ok) throw badInput(`${field}.default`, `${field}.default ${r.problem}`);
    }
    if (col.sortable && before?.slot !== null && before?.slot !== undefined && before.sortable) {
      col.slot = before.slot;
      used.add(before.slot);
    }
    return col;
  });
  for (const [i, col] of out.entries()) {
    if (!col.sortable || col.slot !== null) continue;
    let slot = 0;
    while (used.has(slot)) slot++;
    if (slot >= SORT_SLOTS) throw badInput(`columns[${i}].sortable`, `a table has at most ${SORT_SLOTS} sortable columns`);
    col.slot = slot;
    used.add(slot);
  }
  return out;
}

export async function createDataTable(rt: DataTablesRuntime, principal: Principal, raw: unknown): Promise<DataTable> {
  const input = parseInput(createSchema, raw);
  const columns = buildColumns(input.columns ?? [], []);
  return rt.repo.insertTable(principal.accountId, {
    name: input.name,
    description: input.description ?? null,
    columns,
    rowCount: 0,
    cacheTtlSeconds: input.cacheTtlSeconds ?? null,
  });
}

/** How one row's data changes under a new column list; `problem` when a cell cannot follow. */
function migrateData(
  before: readonly DataTableColumnRecord[],
  after: readonly DataTableColumnRecord[],
  data: RowData,
  migrate: boolean,
): { data: RowData; problem: string | null; changed: boolean } {
  const old = new Map(before.map((c) => [c.id, c]));
  const out: RowData = {};
  let changed = false;
  for (const col of after) {
    const prev = old.get(col.id);
    const value: unknown = prev ? (data[prev.key] ?? null) : null;
    let cell: Cell;
    if (!prev) {
      const r = col.default === null ? { ok: true as const, value: null } : coerceCell(col, col.default);
      cell = r.ok ? r.value : null;
    } else {
      const r = coerceCell(col, value === null ? null : typeof value === 'string' ? value : String(value));
      if (r.ok) cell = r.value;
      else if (!migrate) return { data, problem: `${col.key}: ${JSON.stringify(value)} ${r.problem}`, changed };
      else cell = null;
    }
    if (cell === null && col.required) {
      const d = col.default === null ? null : coerceCell(col, col.default);
      if (migrate && d && d.ok && d.value !== null) cell = d.value;
      else return { data, problem: `${col.key} is required and would be empty`, changed };
    }
    out[col.key] = cell;
    if (!prev || prev.key !== col.key || data[prev.key] !== cell) changed = true;
  }
  if (Object.keys(data).length !== Object.keys(out).length) changed = true;
  return { data: out, problem: null, changed };
}

export interface UpdatedTable {
  table: DataTable;
  migratedRows: number;
}

/**
 * Applies a definition change. A column change is checked against every row first (in chunks):
 * REFUSE (default) refuses naming up to 10 offending rows and writes nothing; MIGRATE converts
 * what converts, empties the rest (or uses the column default when required). Migration rewrites
 * data without creating row versions (history keeps what clients wrote; rollback projects old
 * snapshots onto today's columns).
 */
export async function updateDataTable(rt: DataTablesRuntime, principal: Principal, raw: unknown): Promise<UpdatedTable> {
  const input = parseInput(updateSchema, raw);
  const table = await getDataTable(rt.repo, principal, input.tableId);
  // A definition change may change what filters mean: this process forgets the table's counts.
  return rt.counts.write(
    principal.accountId,
    table.id,
    () => changeDefinition(rt, principal, table, input),
    () => null,
  );
}

async function changeDefinition(rt: DataTablesRuntime, principal: Principal, table: DataTable, input: z.infer<typeof updateSchema>): Promise<UpdatedTable> {
  const tenant = principal.accountId;
  const columns = input.columns ? buildColumns(input.columns, table.columns) : null;
  let migratedRows = 0;
  if (columns) {
    const migrate = input.onInvalidRows === 'MIGRATE';
    const offending: string[] = [];
    for await (const chunk of rt.repo.allRows(tenant, table.id)) {
      for (const row of chunk) {
        const r = migrateData(table.columns, columns, row.data, migrate);
        if (r.problem) offending.push(`${row.id} (${r.problem})`);
      }
      if (offending.length >= 10) break;
    }
    if (offending.length > 0) {
      throw new AppError(
        'UNPROCESSABLE',
        `the column change does not fit ${offending.length >= 10 ? 'at least 10' : offending.length} existing row(s): ${offending.slice(0, 10).join('; ')}; fix them or pass onInvalidRows: MIGRATE`,
        { field: 'columns', rows: offending.slice(0, 10) },
      );
    }
    for await (const chunk of rt.repo.allRows(tenant, table.id)) {
      const writes: Promise<void>[] = [];
      for (const row of chunk) {
        const r = migrateData(table.columns, columns, row.data, migrate);
        const ix = sortSlots(columns, r.data);
        if (!r.changed && JSON.stringify(ix) === JSON.stringify(row.ix)) continue;
        migratedRows++;
        writes.push(rt.repo.migrateRow(tenant, row, r.data, ix));
      }
      await Promise.all(writes);
    }
  }
  const saved = await rt.repo.saveDefinition(
    tenant,
    table.id,
    {
      ...(input.name ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description ?? null } : {}),
      ...(input.cacheTtlSeconds !== undefined ? { cacheTtlSeconds: input.cacheTtlSeconds ?? null } : {}),
      ...(columns ? { columns } : {}),
    },
    table.version,
  );
  if (!saved) throw notFound('data table', input.tableId);
  return { table: saved, migratedRows };
}

export async function deleteDataTable(rt: DataTablesRuntime, principal: Principal, tableId: string): Promise<{ tableId: string; deletedRows: number }> {
  const deletedRows = await rt.counts.write(
    principal.accountId,
    tableId,
    () => rt.repo.deleteTable(principal.accountId, tableId),
    () => null,
  );
  if (deletedRows === null) throw notFound('data table', tableId);
  return { tableId, deletedRows };
}
