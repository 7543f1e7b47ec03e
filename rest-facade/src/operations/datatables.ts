/**
 * /datatables: tables, row writes, batches, reorder, history and rollback onto the datatables
 * queries and mutations. Row reads (ETag from the table generation), import and export are served
 * by the datatables service's own router (x-pylon-handler: datatables, mounted in front of this
 * facade; row reads also answer Cache-Control from the table's cacheTtlSeconds, import and export
 * stream). Query parameters are
 * camelCase (the spec's exception for data tables), and so are the bodies: the spec names a table
 * `rowCount`, `cacheTtlSeconds`, a row page `totalCount`, `continuationToken` (issue 35). Requests
 * still accept the snake_case spellings earlier releases answered with. A row's `data` keys are the
 * table's column keys and pass through untouched.
 */
import { notFound } from '@pylon/kit';
import { createOp, deleteOp, getOp, mapFields, restOp, type FieldMap } from './declare.js';
import type {
  RestBatchRowsFragment,
  RestDataTableFragment,
  RestDataTableRowFragment,
  RestDataTableRowVersionFragment,
} from '@pylon/kit/generated/rest-operations.generated';
import { fieldOf, isRecord, listOf, payloadOf } from './shape.js';
import type { DataOf, OperationId, RestInput, RestOperation, RestSchema, RestSuccess, RootOf } from './types.js';
import { answers, arrayOf, created, documented, errors, jobAccepted, json, jsonBody, md, noContent, params, ref, route } from './route.js';
import { gql } from './gql.js';

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
  /** Its GraphQL document (gql`...`). */
  document: string;
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
    document: spec.document,
  };
}

export const listDataTables = route(
  'GET /datatables',
  {
    tags: ['DataTables'],
    summary: 'Data tables of the account, by name.',
    description:
      '`pageSize` tables per page (default 50, at most 100); to read the next page, send the `continuationToken` field of this answer as the `continuationToken` query parameter. Policy: DataTables_View.',
    parameters: params('DataTablePageSize', 'ContinuationToken'),
    responses: answers('One page of tables.', ref('DataTableList'), 400, 401, 403, 500),
  },
  restOp('listDataTables', {
    document: gql`
      # GET /datatables.
      query listDataTables($pageSize: Int, $continuationToken: String) {
        dataTables(pageSize: $pageSize, continuationToken: $continuationToken) {
          data {
            ...RestDataTable
          }
          continuationToken
        }
      }
    `,
    variables: ({ query }) => ({ pageSize: query.pageSize, continuationToken: query.continuationToken }),
    respond(data) {
      const list = fieldOf(data, 'dataTables');
      return { body: { data: (list.data ?? []).map(restTable), continuationToken: list.continuationToken ?? null } };
    },
    accepts: { query: ['pageSize', 'continuationToken'] },
  }),
);

export const getDataTable = route(
  'GET /datatables/{tableId}',
  {
    tags: ['DataTables'],
    summary: "A table's definition with its columns.",
    description: 'Policy: DataTables_View.',
    parameters: params('TableIdPath'),
    responses: answers('The table.', ref('DataTable'), 401, 403, 404, 500),
  },
  getOp('getDataTable', {
    document: gql`
      # GET /datatables/{tableId}.
      query getDataTable($tableId: String!) {
        dataTable(tableId: $tableId) {
          ...RestDataTable
        }
      }
    `,
    root: 'dataTable',
    what: 'data table',
    param: 'tableId',
    variable: 'tableId',
    toRest: restTable,
  }),
);

// The camelCase name first: an error's `field` names the first spelling (declare.ts inverse).
const TABLE_FIELDS = {
  name: 'name',
  description: 'description',
  cacheTtlSeconds: 'cacheTtlSeconds',
  cache_ttl_seconds: 'cacheTtlSeconds',
  columns: 'columns',
} as const satisfies FieldMap;

export const createDataTable = route(
  'POST /datatables',
  {
    tags: ['DataTables'],
    summary: 'Create a data table.',
    description: 'Column keys: letters, digits, _ and -, starting with a letter or _; unique in the table. Policy: DataTables_Edit.',
    requestBody: jsonBody('DataTableCreate'),
    responses: created('The new table.', ref('DataTable'), 400, 401, 403, 409, 500),
  },
  createOp('createDataTable', {
    document: gql`
      # POST /datatables.
      mutation createDataTable($input: CreateDataTableInput!) {
        createDataTable(input: $input) {
          ...RestOutcome
          table {
            ...RestDataTable
          }
        }
      }
    `,
    root: 'createDataTable',
    record: 'table',
    body: { fields: TABLE_FIELDS },
    toRest: restTable,
  }),
);

export const updateDataTable = route(
  'PUT /datatables/{tableId}',
  {
    tags: ['DataTables'],
    summary: "Change a table's name, description, cacheTtlSeconds or columns.",
    description: md(
      'Properties left out stay. `columns`, when given, is the complete new column list: entries',
      'with the `id` of an existing column change it, entries without `id` add columns, columns',
      'left out are removed with their cells. Rows the change would make invalid refuse it (422,',
      'naming them; `onInvalidRows: REFUSE`, the default) or are converted (`MIGRATE`).',
      'Policy: DataTables_Edit.',
    ),
    parameters: params('TableIdPath'),
    requestBody: jsonBody('DataTableUpdate'),
    responses: answers('The table as changed.', ref('DataTable'), 400, 401, 403, 404, 409, 422, 500),
  },
  inputOp('updateDataTable', {
    document: gql`
      # PUT /datatables/{tableId}.
      mutation updateDataTable($input: UpdateDataTableInput!) {
        updateDataTable(input: $input) {
          ...RestOutcome
          table {
            ...RestDataTable
          }
        }
      }
    `,
    root: 'updateDataTable',
    path: ['tableId'],
    body: { ...TABLE_FIELDS, onInvalidRows: 'onInvalidRows', on_invalid_rows: 'onInvalidRows' },
    respond: (p) => ({ body: restTable(fieldOf(p, 'table')) }),
  }),
);

export const deleteDataTable = route(
  'DELETE /datatables/{tableId}',
  {
    tags: ['DataTables'],
    summary: 'Delete the table, all its rows and their history.',
    description: 'Policy: DataTables_Delete.',
    parameters: params('TableIdPath'),
    responses: noContent('Deleted.', 401, 403, 404, 500),
  },
  deleteOp('deleteDataTable', {
    document: gql`
      # DELETE /datatables/{tableId}.
      mutation deleteDataTable($tableId: String!) {
        deleteDataTable(tableId: $tableId) {
          ...RestOutcome
          tableId
        }
      }
    `,
    root: 'deleteDataTable',
    param: 'tableId',
    variable: 'tableId',
  }),
);

export const createDataTableRow = route(
  'POST /datatables/{tableId}/rows',
  {
    tags: ['DataTables'],
    summary: 'Add a row at the end.',
    description: 'Cells are validated and coerced by column type; required columns without a default must be given. Policy: DataTables_Edit.',
    parameters: params('TableIdPath'),
    requestBody: jsonBody('DataTableRowCreate'),
    responses: created('The new row.', ref('DataTableRow'), 400, 401, 403, 404, 500),
  },
  inputOp('createDataTableRow', {
    document: gql`
      # POST /datatables/{tableId}/rows.
      mutation createDataTableRow($input: CreateDataTableRowInput!) {
        createDataTableRow(input: $input) {
          ...RestOutcome
          row {
            ...RestDataTableRow
          }
        }
      }
    `,
    root: 'createDataTableRow',
    path: ['tableId'],
    body: { data: 'data' },
    respond: (p) => ({ status: 201, body: restRow(fieldOf(p, 'row')) }),
  }),
);

export const updateDataTableRow = route(
  'PUT /datatables/{tableId}/rows/{rowId}',
  {
    tags: ['DataTables'],
    summary: 'Change some cells of a row (partial).',
    description:
      'Cells not in `data` stay; null clears one. With `version`, the write is refused with 409 (VERSION_CONFLICT) unless the row is still at that version. Policy: DataTables_Edit.',
    parameters: params('TableIdPath', 'RowIdPath'),
    requestBody: jsonBody('DataTableRowUpdate'),
    responses: answers('The row as written.', ref('DataTableRow'), 400, 401, 403, 404, 409, 500),
  },
  inputOp('updateDataTableRow', {
    document: gql`
      # PUT /datatables/{tableId}/rows/{rowId} (partial).
      mutation updateDataTableRow($input: UpdateDataTableRowInput!) {
        updateDataTableRow(input: $input) {
          ...RestOutcome
          row {
            ...RestDataTableRow
          }
        }
      }
    `,
    root: 'updateDataTableRow',
    path: ['tableId', 'rowId'],
    body: { data: 'data', version: 'version' },
    respond: (p) => ({ body: restRow(fieldOf(p, 'row')) }),
  }),
);

export const deleteDataTableRow = route(
  'DELETE /datatables/{tableId}/rows/{rowId}',
  {
    tags: ['DataTables'],
    summary: 'Delete a row (its history stays until the table is deleted).',
    description: 'With `version`, refused with 409 unless the row is still at that version. Policy: DataTables_Delete.',
    parameters: [...params('TableIdPath', 'RowIdPath'), { name: 'version', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 2147483647 } }],
    responses: noContent('Deleted.', 400, 401, 403, 404, 409, 500),
  },
  restOp('deleteDataTableRow', {
    document: gql`
      # DELETE /datatables/{tableId}/rows/{rowId}.
      mutation deleteDataTableRow($tableId: String!, $rowId: String!, $version: Int) {
        deleteDataTableRow(tableId: $tableId, rowId: $rowId, version: $version) {
          ...RestOutcome
          rowId
        }
      }
    `,
    variables: ({ params, query }) => ({ tableId: params.tableId, rowId: params.rowId, version: query.version }),
    respond(data) {
      payloadOf(data, 'deleteDataTableRow');
      return { status: 204, body: null };
    },
    accepts: { path: ['tableId', 'rowId'], query: ['version'] },
  }),
);

type BatchPayload = RestBatchRowsFragment;
const batchBody = (p: BatchPayload) => ({
  body: { results: Array.isArray(p.results) ? p.results.map(restResult) : [], successCount: p.successCount ?? 0, failureCount: p.failureCount ?? 0 },
});

export const batchCreateDataTableRows = route(
  'POST /datatables/{tableId}/rows/batch',
  {
    tags: ['DataTables'],
    summary: 'Create up to 100 rows; each succeeds or fails on its own.',
    description: 'More than 100 rows are refused as a whole (400, nothing written). Policy: DataTables_Edit.',
    parameters: params('TableIdPath'),
    requestBody: jsonBody('DataTableBatchCreate'),
    responses: answers('Per-row results.', ref('DataTableBatchResult'), 400, 401, 403, 404, 500),
  },
  inputOp('batchCreateDataTableRows', {
    document: gql`
      # POST /datatables/{tableId}/rows/batch.
      mutation batchCreateDataTableRows($input: BatchCreateDataTableRowsInput!) {
        batchCreateDataTableRows(input: $input) {
          ...RestBatchRows
        }
      }
    `,
    root: 'batchCreateDataTableRows',
    path: ['tableId'],
    body: { rows: 'rows' },
    respond: batchBody,
  }),
);

export const batchDeleteDataTableRows = route(
  'POST /datatables/{tableId}/rows/batch-delete',
  {
    tags: ['DataTables'],
    summary: 'Delete up to 100 rows; each succeeds or fails on its own.',
    description: 'More than 100 ids are refused as a whole (400, nothing deleted). Policy: DataTables_Delete.',
    parameters: params('TableIdPath'),
    requestBody: jsonBody('DataTableBatchDelete'),
    responses: answers('Per-row results.', ref('DataTableBatchResult'), 400, 401, 403, 404, 500),
  },
  inputOp('batchDeleteDataTableRows', {
    document: gql`
      # POST /datatables/{tableId}/rows/batch-delete.
      mutation batchDeleteDataTableRows($input: BatchDeleteDataTableRowsInput!) {
        batchDeleteDataTableRows(input: $input) {
          ...RestBatchRows
        }
      }
    `,
    root: 'batchDeleteDataTableRows',
    path: ['tableId'],
    body: { rowIds: 'rowIds', row_ids: 'rowIds' },
    respond: batchBody,
  }),
);

export const reorderDataTableRows = route(
  'PUT /datatables/{tableId}/rows/reorder',
  {
    tags: ['DataTables'],
    summary: 'Move rows.',
    description:
      'The given rows, in the given order, go right after `afterRowId` (at the top when it is null or absent). Other rows keep their order. Policy: DataTables_Edit.',
    parameters: params('TableIdPath'),
    requestBody: jsonBody('DataTableReorder'),
    responses: answers('How many rows moved.', ref('DataTableReorderResult'), 400, 401, 403, 404, 500),
  },
  inputOp('reorderDataTableRows', {
    document: gql`
      # PUT /datatables/{tableId}/rows/reorder.
      mutation reorderDataTableRows($input: ReorderDataTableRowsInput!) {
        reorderDataTableRows(input: $input) {
          ...RestOutcome
          moved
        }
      }
    `,
    root: 'reorderDataTableRows',
    path: ['tableId'],
    body: { rowIds: 'rowIds', afterRowId: 'afterRowId', row_ids: 'rowIds', after_row_id: 'afterRowId' },
    respond: (p) => ({ body: { moved: p.moved ?? 0 } }),
  }),
);

export const rollbackDataTableRow = route(
  'POST /datatables/{tableId}/rows/{rowId}/rollback',
  {
    tags: ['DataTables'],
    summary: 'Restore a row (even a deleted one) to an earlier version, as a new version.',
    description: 'With `expected_version`, refused with 409 unless the row is currently at that version. Policy: DataTables_Edit.',
    parameters: params('TableIdPath', 'RowIdPath'),
    requestBody: jsonBody('DataTableRollback'),
    responses: answers('The new version and the restored row.', ref('DataTableRollbackResult'), 400, 401, 403, 404, 409, 500),
  },
  inputOp('rollbackDataTableRow', {
    document: gql`
      # POST /datatables/{tableId}/rows/{rowId}/rollback.
      mutation rollbackDataTableRow($input: RollbackDataTableRowInput!) {
        rollbackDataTableRow(input: $input) {
          ...RestOutcome
          newVersion
          restoredRow {
            ...RestDataTableRow
          }
        }
      }
    `,
    root: 'rollbackDataTableRow',
    path: ['tableId', 'rowId'],
    body: { version: 'version', expectedVersion: 'expectedVersion', expected_version: 'expectedVersion' },
    respond: (p) => ({ body: { newVersion: p.newVersion, restoredRow: restRow(fieldOf(p, 'restoredRow')) } }),
  }),
);

export const listDataTableRowVersions = route(
  'GET /datatables/{tableId}/rows/{rowId}/versions',
  {
    tags: ['DataTables'],
    summary: "A row's version history, newest first.",
    description: 'Kept after the row is deleted, until the table is. Policy: DataTables_View.',
    parameters: params('TableIdPath', 'RowIdPath'),
    responses: answers('The versions.', arrayOf('DataTableRowVersion'), 401, 403, 404, 500),
  },
  restOp('listDataTableRowVersions', {
    document: gql`
      # GET /datatables/{tableId}/rows/{rowId}/versions.
      query listDataTableRowVersions($tableId: String!, $rowId: String!) {
        dataTableRowVersions(tableId: $tableId, rowId: $rowId) {
          ...RestDataTableRowVersion
        }
      }
    `,
    variables: ({ params }) => ({ tableId: params.tableId, rowId: params.rowId }),
    respond: (data) => ({ body: listOf(data, 'dataTableRowVersions').map(restVersion) }),
    accepts: { path: ['tableId', 'rowId'] },
  }),
);

export const getDataTableRowVersion = route(
  'GET /datatables/{tableId}/rows/{rowId}/versions/{version}',
  {
    tags: ['DataTables'],
    summary: 'One version snapshot of a row.',
    description: 'Policy: DataTables_View.',
    parameters: [
      ...params('TableIdPath', 'RowIdPath'),
      { name: 'version', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: 2147483647 } },
    ],
    responses: answers('The version.', ref('DataTableRowVersion'), 400, 401, 403, 404, 500),
  },
  restOp('getDataTableRowVersion', {
    document: gql`
      # GET /datatables/{tableId}/rows/{rowId}/versions/{version}.
      query getDataTableRowVersion($tableId: String!, $rowId: String!, $version: Int!) {
        dataTableRowVersion(tableId: $tableId, rowId: $rowId, version: $version) {
          ...RestDataTableRowVersion
        }
      }
    `,
    // Path parameters arrive as text; the OpenAPI check has already refused non-integers.
    variables: ({ params }) => ({ tableId: params.tableId, rowId: params.rowId, version: Number(params.version) }),
    respond(data, { params }) {
      const v = data.dataTableRowVersion;
      if (!v) throw notFound('row version', `${String(params.rowId)}@${String(params.version)}`);
      return { body: restVersion(v) };
    },
    accepts: { path: ['tableId', 'rowId', 'version'] },
  }),
);

/** A row read's answers: 200 with its ETag and Cache-Control, 304 while no write happened since the ETag sent. */
const rowRead = (description: string, schema: string) => ({
  '200': {
    description,
    headers: { ETag: { schema: { type: 'string' } }, 'Cache-Control': { schema: { type: 'string' } } },
    content: json(ref(schema)),
  },
  '304': { description: 'Not modified since the ETag sent in If-None-Match.' },
  ...errors(400, 401, 403, 404),
});

export const listDataTableRows = documented('GET /datatables/{tableId}/rows', {
  tags: ['DataTables'],
  'x-pylon-handler': 'datatables',
  summary: 'One page of rows.',
  description: md(
    '`filter`: a JSON object of column key to a value (equality) or an operator object, e.g.',
    '`{"city":"Oslo","price":{"gte":10,"lt":20}}`; operators: eq, neq, contains, notContains,',
    'gt, gte, lt, lte, isEmpty, isNotEmpty, positive, negative, inRange [a,b], outOfRange [a,b].',
    '`sort`: any column key (default: the row order): a column marked sortable walks its index, any',
    'other is read and sorted, on tables of at most 20,000 rows (larger: 400 naming sort, saying to',
    'mark the column sortable); `sortDir`: asc or desc. `pageSize`:',
    'default 50, at most 100. `continuationToken`: from the previous page. `fields`: comma-separated',
    'row properties to return (id, sortOrder, data, updatedAt, version; `data.<key>` narrows',
    "data to those columns). Answers ETag (the table's generation and the query): send it back in",
    'If-None-Match for a 304 while no write happened. Policy: DataTables_View.',
  ),
  parameters: [
    ...params('TableIdPath'),
    { name: 'filter', in: 'query', schema: { type: 'string', maxLength: 10000 } },
    { name: 'sort', in: 'query', schema: { type: 'string', maxLength: 200 } },
    { name: 'sortDir', in: 'query', schema: { type: 'string', enum: ['asc', 'desc', 'ASC', 'DESC'] } },
    ...params('DataTablePageSize', 'ContinuationToken', 'RowFields'),
  ],
  responses: rowRead('The page.', 'DataTableRowList'),
});

export const importDataTableRows = documented('POST /datatables/{tableId}/rows/import', {
  tags: ['DataTables'],
  'x-pylon-handler': 'datatables',
  summary: 'Add rows from a CSV or .xlsx file (multipart/form-data, part `file`).',
  description: md(
    'The first row names columns by key or by name. CSV: UTF-8, RFC 4180. .xlsx: the first',
    'worksheet; the archive is checked before it is read (at most 64 entries, 200 MB',
    "uncompressed in all, each entry's declared sizes must match what it expands to, and no",
    'entry may expand more than 200 times), then streamed. Bad rows are reported with their',
    'line (CSV) or row number (xlsx), at most 100, and do not stop the others. At most 100 MB',
    'and 1,000,000 rows per file, and DATATABLE_MAX_ROWS (default 2,000,000) rows per table.',
    'A file over IMPORT_JOB_THRESHOLD_BYTES (default 1 MB) runs as a job: the answer is 202 with',
    'the job (follow it at GET /jobs/{id}, cancel it with DELETE /jobs/{id}); an account runs at',
    'most JOBS_MAX_PER_ACCOUNT (default 2) jobs at once (429 beyond). Smaller files answer 200',
    'with the result at once. Policy: DataTables_Edit.',
  ),
  parameters: params('TableIdPath'),
  requestBody: {
    required: true,
    content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } } },
  },
  responses: {
    '200': { description: 'What was imported.', content: json(ref('DataTableImportResult')) },
    '202': jobAccepted('The file is over IMPORT_JOB_THRESHOLD_BYTES; it is imported by a job (Location names it).'),
    ...errors(400, 401, 403, 404, 413, 415, 429),
  },
});

export const exportDataTableRows = documented('GET /datatables/{tableId}/rows/export', {
  tags: ['DataTables'],
  'x-pylon-handler': 'datatables',
  summary: 'All rows as CSV (streamed).',
  description: md(
    'RFC 4180, UTF-8, CRLF, a header of column keys, rows in row order. Text cells starting with =, +, -, @, tab or CR are prefixed with an apostrophe so spreadsheets do not run them. Policy: DataTables_View.',
    'A table of more than EXPORT_JOB_THRESHOLD_ROWS rows (default 100,000), or a request with',
    '`Prefer: respond-async`, is exported by a job: the answer is 202 with the job (Location:',
    '/jobs/{id}); the job writes the same CSV to the blob store, and once it succeeded GET',
    '/jobs/{id} gives `result.download_url`, a signed link (GET /jobs/{id}/result) that works',
    'without an API key until `download_expires_on`.',
  ),
  parameters: params('TableIdPath', 'PreferAsync'),
  responses: {
    '200': { description: 'The CSV file.', content: { 'text/csv': { schema: { type: 'string' } } } },
    '202': jobAccepted('The export runs as a job (Location names it); the file is downloaded through its signed link.'),
    ...errors(401, 403, 404, 429),
  },
});

export const getDataTableRow = documented('GET /datatables/{tableId}/rows/{rowId}', {
  tags: ['DataTables'],
  'x-pylon-handler': 'datatables',
  summary: 'One row.',
  description: 'ETag / If-None-Match (304) and Cache-Control as for the row list. `fields` as for the row list. Policy: DataTables_View.',
  parameters: params('TableIdPath', 'RowIdPath', 'RowFields'),
  responses: rowRead('The row.', 'DataTableRow'),
});
