/**
 * /datatables in json, xml and JSONP: list tables, one table, one page of rows, one row, and row
 * writes (create, update by PUT or POST, delete) with JSON or XML bodies. Query parameters are
 * camelCase (pageSize, continuationToken, filter, sort, sortDir: the spec's exception for data
 * tables); records are snake_case like every legacy record, except a row's `data`, whose keys are
 * the table's column keys and pass through untouched (XML: `<data><city>Oslo</city></data>`;
 * XML leaves arrive as strings and the service converts them by column type).
 */
import { z } from 'zod';
import { AppError, payloadAt, snakeRecord, type JsonObject } from '@pylon/kit';
import type { RestDataTableFragment, RestDataTableRowFragment } from '@pylon/kit/generated/rest-operations.generated';
import { notFoundById, parseQuery, resource, type LegacyQuery } from './resource.js';

/** A row's cells under the table's own column keys: any JSON object (the service checks them against the columns). */
type RowCells = JsonObject;

/** Field lists in wire order; the keys come out of kit's case conversion, like every REST and legacy record. */
const COLUMN_FIELDS = ['id', 'name', 'key', 'type', 'required', 'sortable', 'options', 'default'] as const;
const TABLE_FIELDS = ['id', 'name', 'description', 'column_count', 'row_count', 'updated_at', 'cache_ttl_seconds'] as const;

export const toLegacyTable = (t: RestDataTableFragment) => ({
  ...snakeRecord(t, TABLE_FIELDS),
  columns: (t.columns ?? []).map((c) => snakeRecord(c, COLUMN_FIELDS)),
});

/** `data` is the row's cells under the table's own column keys: never case-converted. */
export const toLegacyRow = (r: RestDataTableRowFragment) => ({
  id: r.id,
  sort_order: r.sortOrder,
  data: r.data,
  updated_at: r.updatedAt,
  version: r.version,
});
type LegacyRow = ReturnType<typeof toLegacyRow>;

const token = z.string().min(1).max(2000).optional();
const TablesQuery = z.object({ pageSize: z.coerce.number().int().min(1).max(100).optional(), continuationToken: token });
const RowsQuery = TablesQuery.extend({
  filter: z.string().max(10_000).optional(),
  sort: z.string().min(1).max(200).optional(),
  sortDir: z.enum(['asc', 'desc']).optional(),
});

const only = <T extends string>(query: LegacyQuery, names: readonly T[]): Partial<Record<T, unknown>> =>
  Object.fromEntries(names.filter((n) => query[n] !== undefined).map((n) => [n, query[n]])) as Partial<Record<T, unknown>>;

export const listDataTables = resource('GET /datatables', 'listDataTables', { root: 'datatables', item: 'datatable' }, async ({ query, call }) => {
  const q = parseQuery(TablesQuery, only(query, ['pageSize', 'continuationToken']));
  return ((await call(q)).dataTables?.data ?? []).map(toLegacyTable);
});

export const getDataTable = resource('GET /datatables/:tableId', 'getDataTable', { root: 'datatable' }, async ({ params, call }) => {
  const { dataTable } = await call({ tableId: params.tableId });
  if (!dataTable) throw notFoundById('data table', params.tableId);
  return toLegacyTable(dataTable);
});

interface LegacyRowPage {
  rows: LegacyRow[];
  total_count: number;
  continuation_token: string | null;
}

export const listDataTableRows = resource(
  'GET /datatables/:tableId/rows',
  'listDataTableRows',
  { root: 'datatable_rows' },
  async ({ params, query, call }): Promise<LegacyRowPage> => {
    const q = parseQuery(RowsQuery, only(query, ['pageSize', 'continuationToken', 'filter', 'sort', 'sortDir']));
    const page = (await call({ tableId: params.tableId, ...q })).dataTableRows;
    if (!page) throw notFoundById('data table', params.tableId);
    return { rows: page.data.map(toLegacyRow), total_count: page.totalCount, continuation_token: page.continuationToken ?? null };
  },
);

export const getDataTableRow = resource('GET /datatables/:tableId/rows/:rowId', 'getDataTableRow', { root: 'row' }, async ({ params, call }) => {
  const { dataTableRow } = await call({ tableId: params.tableId, rowId: params.rowId });
  if (!dataTableRow) throw notFoundById('row', params.rowId);
  return toLegacyRow(dataTableRow);
});

/** `{ data: {...}, version? }` (XML: `<row><data>...</data><version>3</version></row>`); anything else is refused by name. */
function rowBody(body: unknown, opts: { version: boolean }): { data: RowCells; version?: number } {
  if (body === undefined || body === null || body === '')
    throw new AppError('BAD_USER_INPUT', 'a row body (JSON or XML) with data is required', { field: 'data' });
  if (typeof body !== 'object' || Array.isArray(body)) throw new AppError('BAD_USER_INPUT', 'the body must be one row object', { field: 'data' });
  const b = body as JsonObject;
  for (const k of Object.keys(b)) {
    if (k !== 'data' && !(opts.version && k === 'version'))
      throw new AppError('BAD_USER_INPUT', `unknown field ${k.slice(0, 100)}: a row body takes data${opts.version ? ' and version' : ''}`, {
        field: k.slice(0, 100),
      });
  }
  // An empty XML element (<data/>) arrives as '' or null: no cells.
  const data = b.data === '' || b.data === null || b.data === undefined ? {} : b.data;
  if (typeof data !== 'object' || Array.isArray(data))
    throw new AppError('BAD_USER_INPUT', 'data must be an object of column key to cell value', { field: 'data' });
  if (b.version === undefined || b.version === null || b.version === '') return { data: data as RowCells };
  const version =
    typeof b.version === 'number' ? b.version : typeof b.version === 'string' && /^\d{1,9}$/.test(b.version.trim()) ? Number(b.version) : Number.NaN;
  if (!Number.isInteger(version) || version < 0) throw new AppError('BAD_USER_INPUT', 'version must be a non-negative integer', { field: 'version' });
  return { data: data as RowCells, version };
}

/** The written row of a create or update payload (a failed payload answers its error). */
const rowOf = (data: JsonObject, root: 'createDataTableRow' | 'updateDataTableRow'): LegacyRow =>
  toLegacyRow(payloadAt(data, root).row as RestDataTableRowFragment);

export const createDataTableRow = resource(
  'POST /datatables/:tableId/rows',
  'createDataTableRow',
  { root: 'row' },
  async ({ params, body, call }) => {
    const { data } = rowBody(body, { version: false });
    return rowOf(await call({ input: { tableId: params.tableId, data } }), 'createDataTableRow');
  },
  { status: 201 },
);

/** Changes the given cells (PUT, or POST for clients that only POST); `version` refuses stale writes. */
const updateRow = (method: 'PUT' | 'POST') =>
  resource(`${method} /datatables/:tableId/rows/:rowId`, 'updateDataTableRow', { root: 'row' }, async ({ params, body, call }) => {
    const input = rowBody(body, { version: true });
    return rowOf(await call({ input: { tableId: params.tableId, rowId: params.rowId, ...input } }), 'updateDataTableRow');
  });
export const putDataTableRow = updateRow('PUT');
export const postDataTableRow = updateRow('POST');

const VersionQuery = z.object({ version: z.coerce.number().int().min(0).optional() });

export const deleteDataTableRow = resource(
  'DELETE /datatables/:tableId/rows/:rowId',
  'deleteDataTableRow',
  { root: 'row' },
  async ({ params, query, call }) => {
    const { version } = parseQuery(VersionQuery, only(query, ['version']));
    const payload = payloadAt(
      await call({ tableId: params.tableId, rowId: params.rowId, ...(version !== undefined ? { version } : {}) }),
      'deleteDataTableRow',
    );
    return { id: String(payload.rowId), deleted: true, version: typeof payload.version === 'number' ? payload.version : null };
  },
);
