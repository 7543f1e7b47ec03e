/**
 * /datatables: tables, row writes, batches, reorder, history and rollback onto the datatables
 * queries and mutations. Row reads (ETag from the table generation), import and export are served
 * by the datatables service's own router (x-pylon-handler: datatables). Query parameters are
 * camelCase (the spec's exception for data tables), and so are the bodies: the spec names a table
 * `rowCount`, `cacheTtlSeconds`, a row page `totalCount`, `continuationToken` (issue 35). Requests
 * still accept the snake_case spellings earlier releases answered with. A row's `data` keys are the
 * table's column keys and pass through untouched.
 */
import { notFound } from '@pylon/kit';
import { createOp, deleteOp, getOp, mapFields, restOp, type FieldMap } from './declare.js';
import type {
  BatchCreateDataTableRowsMutation,
  RestDataTableFragment,
  RestDataTableRowFragment,
  RestDataTableRowVersionFragment,
} from '@pylon/kit/generated/rest-operations.generated';
import { fieldOf, isRecord, listOf, payloadOf } from './shape.js';
import type { DataOf, OperationId, RestInput, RestOperation, RestSchema, RestSuccess, RootOf } from './types.js';

const restColumn = (r: RestDataTableFragment['columns'][number]): RestSchema<'DataTableColumn'> => {
  return {
    id: r.id,
    name: r.name,
    key: r.key,
    type: r.type,
    required: r.required,
    sortable: r.sortable,
    options: r.options ?? null,
    default: r.default ?? null,
  };
};

export const restTable = (t: RestDataTableFragment): RestSchema<'DataTable'> => ({
  id: t.id,
  name: t.name,
  description: t.description ?? null,
  columnCount: t.columnCount,
  rowCount: t.rowCount,
  updatedAt: t.updatedAt,
  cacheTtlSeconds: t.cacheTtlSeconds ?? null,
  columns: (t.columns ?? []).map(restColumn),
});

/** `data` is the row's cells under the table's own column keys: never case-converted. */
export const restRow = (r: RestDataTableRowFragment) => ({ id: r.id, sortOrder: r.sortOrder, data: r.data, updatedAt: r.updatedAt, version: r.version });

const restVersion = (v: RestDataTableRowVersionFragment) => ({
  rowId: v.rowId,
  version: v.version,
  change: v.change,
  data: v.data,
  sortOrder: v.sortOrder,
  updatedAt: v.updatedAt,
  userId: v.userId ?? null,
});

const restResult = (r: unknown) => {
  const x = isRecord(r) ? r : {};
  return { index: x.index, rowId: x.rowId ?? null, success: x.success, error: x.error ?? null, errorCode: x.errorCode ?? null };
};

const PATH_VARIABLES: Readonly<Record<string, string>> = { tableId: 'tableId', rowId: 'rowId' };

interface InputSpec<N extends OperationId, R extends RootOf<N>> {
  root: R;
  /** Path parameters copied into `input` under the same name. */
  path: readonly string[];
  body: FieldMap;
  respond(payload: NonNullable<DataOf<N>[R]>, input: RestInput): RestSuccess;
}

/** A mutation taking `input`: the path ids plus the mapped body. */
function inputOp<N extends OperationId, R extends RootOf<N>>(operationId: N, spec: InputSpec<N, R>): RestOperation<DataOf<N>> {
  const fieldNames: Record<string, string> = { input: 'body' };
  for (const [name, to] of Object.entries(spec.body)) {
    if (to === false) continue;
    const g = typeof to === 'string' ? to : to.to;
    fieldNames[g] = name;
    fieldNames[`input.${g}`] = name;
  }
  for (const p of spec.path) fieldNames[`input.${PATH_VARIABLES[p]}`] = p;
  return {
    variables: (input) => {
      const mapped = mapFields(input.body, spec.body, input);
      for (const p of spec.path) mapped[PATH_VARIABLES[p]!] = input.params[p];
      return { input: mapped };
    },
    respond: (data, input) => spec.respond(payloadOf(data, spec.root, fieldNames), input),
    fieldNames,
    accepts: { path: spec.path, body: Object.keys(spec.body) },
    operationId,
  };
}

export const listDataTables = restOp('listDataTables', {
  variables: ({ query }) => ({ pageSize: query.pageSize, continuationToken: query.continuationToken }),
  respond(data) {
    const list = fieldOf(data, 'dataTables');
    return { body: { data: (list.data ?? []).map(restTable), continuationToken: list.continuationToken ?? null } };
  },
  accepts: { query: ['pageSize', 'continuationToken'] },
});

export const getDataTable = getOp('getDataTable', { root: 'dataTable', what: 'data table', param: 'tableId', variable: 'tableId', toRest: restTable });

// The camelCase name first: an error's `field` names the first spelling (declare.ts inverse).
const TABLE_FIELDS = {
  name: 'name',
  description: 'description',
  cacheTtlSeconds: 'cacheTtlSeconds',
  cache_ttl_seconds: 'cacheTtlSeconds',
  columns: 'columns',
} as const satisfies FieldMap;

export const createDataTable = createOp('createDataTable', { root: 'createDataTable', record: 'table', body: { fields: TABLE_FIELDS }, toRest: restTable });

export const updateDataTable = inputOp('updateDataTable', {
  root: 'updateDataTable',
  path: ['tableId'],
  body: { ...TABLE_FIELDS, onInvalidRows: 'onInvalidRows', on_invalid_rows: 'onInvalidRows' },
  respond: (p) => ({ body: restTable(fieldOf(p, 'table')) }),
});

export const deleteDataTable = deleteOp('deleteDataTable', { root: 'deleteDataTable', param: 'tableId', variable: 'tableId' });

export const createDataTableRow = inputOp('createDataTableRow', {
  root: 'createDataTableRow',
  path: ['tableId'],
  body: { data: 'data' },
  respond: (p) => ({ status: 201, body: restRow(fieldOf(p, 'row')) }),
});

export const updateDataTableRow = inputOp('updateDataTableRow', {
  root: 'updateDataTableRow',
  path: ['tableId', 'rowId'],
  body: { data: 'data', version: 'version' },
  respond: (p) => ({ body: restRow(fieldOf(p, 'row')) }),
});

export const deleteDataTableRow = restOp('deleteDataTableRow', {
  variables: ({ params, query }) => ({ tableId: params.tableId, rowId: params.rowId, version: query.version }),
  respond(data) {
    payloadOf(data, 'deleteDataTableRow');
    return { status: 204, body: null };
  },
  accepts: { path: ['tableId', 'rowId'], query: ['version'] },
});

type BatchPayload = NonNullable<BatchCreateDataTableRowsMutation['batchCreateDataTableRows']>;
const batchBody = (p: BatchPayload) => ({
  body: { results: Array.isArray(p.results) ? p.results.map(restResult) : [], successCount: p.successCount ?? 0, failureCount: p.failureCount ?? 0 },
});

export const batchCreateDataTableRows = inputOp('batchCreateDataTableRows', {
  root: 'batchCreateDataTableRows',
  path: ['tableId'],
  body: { rows: 'rows' },
  respond: batchBody,
});

export const batchDeleteDataTableRows = inputOp('batchDeleteDataTableRows', {
  root: 'batchDeleteDataTableRows',
  path: ['tableId'],
  body: { rowIds: 'rowIds', row_ids: 'rowIds' },
  respond: batchBody,
});

export const reorderDataTableRows = inputOp('reorderDataTableRows', {
  root: 'reorderDataTableRows',
  path: ['tableId'],
  body: { rowIds: 'rowIds', afterRowId: 'afterRowId', row_ids: 'rowIds', after_row_id: 'afterRowId' },
  respond: (p) => ({ body: { moved: p.moved ?? 0 } }),
});

export const rollbackDataTableRow = inputOp('rollbackDataTableRow', {
  root: 'rollbackDataTableRow',
  path: ['tableId', 'rowId'],
  body: { version: 'version', expectedVersion: 'expectedVersion', expected_version: 'expectedVersion' },
  respond: (p) => ({ body: { newVersion: p.newVersion, restoredRow: restRow(fieldOf(p, 'restoredRow')) } }),
});

export const listDataTableRowVersions = restOp('listDataTableRowVersions', {
  variables: ({ params }) => ({ tableId: params.tableId, rowId: params.rowId }),
  respond: (data) => ({ body: listOf(data, 'dataTableRowVersions').map(restVersion) }),
  accepts: { path: ['tableId', 'rowId'] },
});

export const getDataTableRowVersion = restOp('getDataTableRowVersion', {
  // Path parameters arrive as text; the OpenAPI check has already refused non-integers.
  variables: ({ params }) => ({ tableId: params.tableId, rowId: params.rowId, version: Number(params.version) }),
  respond(data, { params }) {
    const v = data.dataTableRowVersion;
    if (!v) throw notFound('row version', `${String(params.rowId)}@${String(params.version)}`);
    return { body: restVersion(v) };
  },
  accepts: { path: ['tableId', 'rowId', 'version'] },
});
