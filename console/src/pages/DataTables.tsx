/**
 * Data tables: a table's rows as a grid sorted by any column (the header buttons) and filtered by
 * one condition, each cell edited in place with an input of its column's type (Enter or leaving the
 * cell saves, Escape cancels), every row's versions with a rollback to any of them, and CSV/.xlsx
 * import with upload progress, then the job's progress when the server runs it as a job. Every write
 * carries the row version read, so a concurrent edit is refused, not overwritten.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Async, AsyncList, Empty, ErrorState } from '../components/states';
import { graphql } from '../gql';
import type { DataTablePageQuery } from '../gql/graphql';
import { authHeaders, gql } from '../lib/api';
import { errorOf, plural, when } from '../lib/format';
import { useRights } from '../lib/permissions';
import { useQuery } from '../lib/use-query';
import { RecordTable, ROW_ACTIONS } from '../components/record-table';

const TableList = graphql(`
  query DataTableList {
    dataTables(pageSize: 100) {
      data {
        id
        name
        rowCount
      }
    }
  }
`);

const TablePage = graphql(`
  query DataTablePage($tableId: String!, $filter: String, $sort: String, $sortDir: String) {
    dataTable(tableId: $tableId) {
      id
      name
      description
      rowCount
      columns {
        id
        key
        name
        type
        options
        required
      }
    }
    dataTableRows(tableId: $tableId, filter: $filter, sort: $sort, sortDir: $sortDir, pageSize: 100) {
      totalCount
      data {
        id
        data
        version
        updatedAt
      }
    }
  }
`);

const UpdateRow = graphql(`
  mutation UpdateDataTableCell($input: UpdateDataTableRowInput!) {
    updateDataTableRow(input: $input) {
      success
      error
    }
  }
`);

const CreateRow = graphql(`
  mutation CreateDataTableGridRow($input: CreateDataTableRowInput!) {
    createDataTableRow(input: $input) {
      success
      error
    }
  }
`);

const RowVersions = graphql(`
  query DataTableRowHistory($tableId: String!, $rowId: String!) {
    dataTableRowVersions(tableId: $tableId, rowId: $rowId, order: [{ version: DESC }]) {
      version
      change
      data
      updatedAt
      userId
    }
  }
`);

const Rollback = graphql(`
  mutation RollbackDataTableRowTo($input: RollbackDataTableRowInput!) {
    rollbackDataTableRow(input: $input) {
      success
      error
      newVersion
    }
  }
`);

const JobProgress = graphql(`
  query ImportJob($id: ID!) {
    job(id: $id) {
      ...JobProgressFields
    }
  }
`);

type Page = NonNullable<DataTablePageQuery['dataTable']>;
type Column = Page['columns'][number];
type Row = NonNullable<DataTablePageQuery['dataTableRows']>['data'][number];
type Cell = string | number | boolean | null | undefined;

const show = (c: Column, v: Cell) => (v == null || v === '' ? '—' : c.type === 'BOOLEAN' ? (v ? 'yes' : 'no') : c.type === 'HIDDEN' ? '•••' : String(v));

/** The input's text as the column's type, or an error naming the column. */
function parseCell(c: Column, raw: string | boolean): Cell {
  if (c.type === 'BOOLEAN') return !!raw;
  const s = String(raw).trim();
  if (s === '') return null;
  if (c.type === 'NUMBER') {
    const n = Number(s);
    if (!Number.isFinite(n)) throw new Error(`${c.name} takes a number, not "${s}".`);
    return n;
  }
  return s;
}

function CellEditor({ column, row, canEdit, onSave }: { column: Column; row: Row; canEdit: boolean; onSave: (v: Cell) => Promise<void> }) {
  const value = (row.data as Record<string, Cell>)[column.key];
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string>();
  const input = useRef<HTMLInputElement & HTMLSelectElement>(null);
  useEffect(() => {
    if (editing) input.current?.focus();
  }, [editing]);
  const label = `${column.name} of row ${row.id}`;
  if (!canEdit) return <>{show(column, value)}</>;
  if (!editing)
    return (
      <button type="button" className="cell" aria-label={`Edit ${label}: ${show(column, value)}`} onClick={() => setEditing(true)}>
        {show(column, value)}
      </button>
    );
  const commit = async () => {
    const el = input.current;
    if (!el) return;
    try {
      const next = parseCell(column, column.type === 'BOOLEAN' ? el.checked : el.value);
      if (next !== (value ?? null)) await onSave(next);
      setEditing(false);
      setError(undefined);
    } catch (e) {
      setError(errorOf(e).message);
    }
  };
  const keys = (e: KeyboardEvent) => {
    if (e.key === 'Enter') void commit();
    if (e.key === 'Escape') setEditing(false);
  };
  return (
    <span className="cell-edit">
      {column.options?.length ? (
        <select ref={input} aria-label={label} defaultValue={String(value ?? '')} onBlur={() => void commit()} onKeyDown={keys}>
          <option value="">—</option>
          {column.options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      ) : (
        <input
          ref={input}
          aria-label={label}
          aria-invalid={!!error}
          type={
            column.type === 'NUMBER'
              ? 'number'
              : column.type === 'BOOLEAN'
                ? 'checkbox'
                : column.type === 'DATE'
                  ? 'date'
                  : column.type === 'IMAGE'
                    ? 'url'
                    : 'text'
          }
          step={column.type === 'NUMBER' ? 'any' : undefined}
          defaultValue={column.type === 'BOOLEAN' ? undefined : column.type === 'DATE' ? String(value ?? '').slice(0, 10) : String(value ?? '')}
          defaultChecked={column.type === 'BOOLEAN' ? !!value : undefined}
          onBlur={() => void commit()}
          onKeyDown={keys}
        />
      )}
      {error && (
        <span role="alert" className="cell-error">
          {error}
        </span>
      )}
    </span>
  );
}

function History({
  tableId,
  row,
  canEdit,
  onRolledBack,
  onClose,
}: {
  tableId: string;
  row: Row;
  canEdit: boolean;
  onRolledBack: () => void;
  onClose: () => void;
}) {
  const q = useQuery(() => gql(RowVersions, { tableId, rowId: row.id }), [tableId, row.id, row.version]);
  const [error, setError] = useState<Error>();
  const rollback = async (version: number) => {
    setError(undefined);
    try {
      const r = (await gql(Rollback, { input: { tableId, rowId: row.id, version, expectedVersion: row.version } })).rollbackDataTableRow;
      if (!r?.success) throw new Error(r?.error ?? 'the rollback was refused');
      onRolledBack();
    } catch (e) {
      setError(errorOf(e));
    }
  };
  return (
    <section className="card" aria-labelledby="hist-h">
      <div className="title-row">
        <h2 id="hist-h">Versions of row {row.id}</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {error && <ErrorState error={error} />}
      <AsyncList q={q} what="the row's versions" of={(d) => d.dataTableRowVersions} empty="No versions recorded">
        {(versions) => (
          <RecordTable caption={<>{plural(versions.length, 'version')}, newest first</>} columns={['Version', 'Change', 'When', 'Data', ROW_ACTIONS]}>
            {versions.map((v) => (
              <tr key={v.version}>
                <td>{v.version}</td>
                <td>{v.change.toLowerCase()}</td>
                <td>{when(v.updatedAt)}</td>
                <td>
                  <code>{JSON.stringify(v.data)}</code>
                </td>
                <td>
                  {canEdit && v.version !== row.version && (
                    <button type="button" onClick={() => void rollback(v.version)}>
                      Roll back to version {v.version}
                    </button>
                  )}
                  {v.version === row.version && <span className="muted">current</span>}
                </td>
              </tr>
            ))}
          </RecordTable>
        )}
      </AsyncList>
    </section>
  );
}

interface ImportState {
  phase: 'uploading' | 'job' | 'done' | 'failed';
  loaded: number;
  total: number;
  message?: string;
}

/** Uploads a CSV/.xlsx (XMLHttpRequest for its progress); a 202 hands over to the job, followed here. */
async function importFile(tableId: string, file: File, onState: (s: ImportState) => void): Promise<void> {
  const headers = await authHeaders();
  const answer = await new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/datatables/${encodeURIComponent(tableId)}/rows/import`);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onState({ phase: 'uploading', loaded: e.loaded, total: e.total || file.size });
    xhr.onload = () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(xhr.responseText) as Record<string, unknown>;
      } catch {
        /* not JSON */
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new Error('the connection failed'));
    const form = new FormData();
    form.append('file', file);
    xhr.send(form);
  });
  if (answer.status === 200) {
    const errors = (answer.body.errors as { line: number; error: string }[] | undefined) ?? [];
    return onState({
      phase: errors.length ? 'failed' : 'done',
      loaded: 1,
      total: 1,
      message: `${plural(Number(answer.body.imported ?? 0), 'row')} imported, ${Number(answer.body.failed ?? 0)} failed${errors[0] ? ` (line ${errors[0].line}: ${errors[0].error})` : ''}.`,
    });
  }
  if (answer.status !== 202) throw new Error(String(answer.body.message ?? `The server answered HTTP ${answer.status}.`));
  const id = String(answer.body.id);
  for (;;) {
    const job = (await gql(JobProgress, { id })).job;
    if (!job) throw new Error('the import job is gone');
    const { rowsDone, rowsTotal, rowsFailed } = job.progress;
    if (job.state === 'SUCCEEDED')
      return onState({ phase: 'done', loaded: 1, total: 1, message: `${plural(rowsDone - rowsFailed, 'row')} imported, ${rowsFailed} failed.` });
    if (job.state === 'FAILED' || job.state === 'CANCELLED')
      return onState({ phase: 'failed', loaded: rowsDone, total: rowsTotal ?? rowsDone, message: job.error ?? job.state.toLowerCase() });
    onState({ phase: 'job', loaded: rowsDone, total: rowsTotal ?? 0, message: `${rowsDone.toLocaleString()} of ${rowsTotal?.toLocaleString() ?? '…'} rows` });
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function Grid({ tableId, onChanged }: { tableId: string; onChanged: () => void }) {
  const canEdit = useRights().can('DataTables', 'edit');
  const [sort, setSort] = useState<{ key: string; dir: 'asc' | 'desc' }>();
  const [filter, setFilter] = useState<{ key: string; op: string; value: string }>({ key: '', op: 'contains', value: '' });
  const [applied, setApplied] = useState<string>();
  const q = useQuery(
    () => gql(TablePage, { tableId, filter: applied ?? null, sort: sort?.key ?? null, sortDir: sort?.dir ?? null }),
    [tableId, applied, sort?.key, sort?.dir],
  );
  const [history, setHistory] = useState<string>();
  const [error, setError] = useState<Error>();
  const [imp, setImp] = useState<ImportState>();

  const save = async (row: Row, key: string, v: Cell) => {
    const r = (await gql(UpdateRow, { input: { tableId, rowId: row.id, data: { ...(row.data as object), [key]: v }, version: row.version } }))
      .updateDataTableRow;
    if (!r?.success) throw new Error(r?.error ?? 'the edit was refused');
    q.reload();
  };
  const applyFilter = (columns: Column[]) => {
    const c = columns.find((x) => x.key === filter.key);
    if (!c || filter.value === '') return setApplied(undefined);
    try {
      // Comparisons on a number column compare numbers; "contains" always matches text.
      const v = ['gt', 'lt', 'eq'].includes(filter.op) && c.type === 'NUMBER' ? parseCell(c, filter.value) : filter.value;
      setError(undefined);
      setApplied(JSON.stringify({ [c.key]: { [filter.op]: v } }));
    } catch (e) {
      setError(errorOf(e));
    }
  };

  return (
    <Async q={q} what="the table">
      {(d) => {
        const t = d.dataTable;
        if (!t) return <Empty title="This table no longer exists" />;
        const rows = d.dataTableRows?.data ?? [];
        const open = rows.find((r) => r.id === history);
        return (
          <>
            <h2>{t.name}</h2>
            {t.description && <p className="muted">{t.description}</p>}
            <form
              className="filters"
              onSubmit={(e) => {
                e.preventDefault();
                applyFilter(t.columns);
              }}
            >
              <label>
                Filter column{' '}
                <select value={filter.key} onChange={(e) => setFilter({ ...filter, key: e.target.value })}>
                  <option value="">(none)</option>
                  {t.columns.map((c) => (
                    <option key={c.key} value={c.key}>
                      {c.name}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Condition{' '}
                <select value={filter.op} onChange={(e) => setFilter({ ...filter, op: e.target.value })}>
                  <option value="contains">contains</option>
                  <option value="eq">equals</option>
                  <option value="gt">greater than</option>
                  <option value="lt">less than</option>
                </select>
              </label>
              <label>
                Value <input value={filter.value} onChange={(e) => setFilter({ ...filter, value: e.target.value })} />
              </label>
              <button type="submit">Apply</button>
              {applied && (
                <button
                  type="button"
                  onClick={() => {
                    setFilter({ key: '', op: 'contains', value: '' });
                    setApplied(undefined);
                  }}
                >
                  Clear filter
                </button>
              )}
            </form>
            {error && <ErrorState error={error} />}
            {canEdit && (
              <div className="actions">
                <button
                  type="button"
                  onClick={() =>
                    void gql(CreateRow, { input: { tableId, data: {} } }).then(
                      (r) => (r.createDataTableRow?.success ? (q.reload(), onChanged()) : setError(new Error(r.createDataTableRow?.error ?? 'refused'))),
                      (e: unknown) => setError(errorOf(e)),
                    )
                  }
                >
                  Add a row
                </button>
                <label className="button">
                  Import CSV or .xlsx
                  <input
                    type="file"
                    accept=".csv,.xlsx,text/csv"
                    className="visually-hidden"
                    onChange={(e) => {
                      const f = e.currentTarget.files?.[0];
                      e.currentTarget.value = '';
                      if (!f) return;
                      setImp({ phase: 'uploading', loaded: 0, total: f.size });
                      importFile(tableId, f, setImp).then(
                        () => {
                          q.reload();
                          onChanged();
                        },
                        (err: unknown) => setImp({ phase: 'failed', loaded: 0, total: 1, message: errorOf(err).message }),
                      );
                    }}
                  />
                </label>
              </div>
            )}
            {imp && (
              <p className={`import ${imp.phase === 'failed' ? 'state-error' : ''}`} role="status" aria-live="polite">
                {imp.phase === 'uploading' ? 'Uploading' : imp.phase === 'job' ? 'Importing (job)' : imp.phase === 'done' ? 'Import finished' : 'Import failed'}
                :{' '}
                {imp.phase === 'uploading' || imp.phase === 'job' ? (
                  <progress max={imp.total || undefined} value={imp.loaded} aria-label="Import progress" />
                ) : null}{' '}
                {imp.message}
              </p>
            )}
            {rows.length === 0 ? (
              <Empty title={applied ? 'No row matches this filter' : 'This table has no rows yet'}>
                <p>{applied ? 'Clear the filter or change it.' : canEdit ? 'Add a row or import a CSV file.' : 'An editor can add rows.'}</p>
              </Empty>
            ) : (
              <div className="scroll">
                <table className="grid datagrid">
                  <caption>
                    {plural(d.dataTableRows?.totalCount ?? rows.length, 'row')}
                    {applied ? ' matching the filter' : ''}
                    {rows.length < (d.dataTableRows?.totalCount ?? 0) ? `, the first ${rows.length} shown` : ''}
                    {canEdit ? '; choose a cell to edit it' : ''}
                  </caption>
                  <thead>
                    <tr>
                      {t.columns.map((c) => (
                        <th key={c.key} scope="col" aria-sort={sort?.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
                          <button
                            type="button"
                            className="sort"
                            onClick={() => setSort({ key: c.key, dir: sort?.key === c.key && sort.dir === 'asc' ? 'desc' : 'asc' })}
                          >
                            {c.name} <span className="muted">{c.type.toLowerCase()}</span> {sort?.key === c.key ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
                          </button>
                        </th>
                      ))}
                      <th scope="col">Version</th>
                    </tr>
                  </thead>
                  <tbody>
                    {rows.map((r) => (
                      <tr key={r.id}>
                        {t.columns.map((c) => (
                          <td key={c.key}>
                            <CellEditor column={c} row={r} canEdit={canEdit} onSave={(v) => save(r, c.key, v)} />
                          </td>
                        ))}
                        <td>
                          <button type="button" onClick={() => setHistory(r.id)}>
                            Versions (v{r.version})<span className="visually-hidden"> of row {r.id}</span>
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {open && (
              <History
                tableId={tableId}
                row={open}
                canEdit={canEdit}
                onClose={() => setHistory(undefined)}
                onRolledBack={() => {
                  q.reload();
                }}
              />
            )}
          </>
        );
      }}
    </Async>
  );
}

export function DataTablesPage() {
  const q = useQuery(() => gql(TableList), []);
  const [selected, setSelected] = useState<string>();
  return (
    <section>
      <h1>Data tables</h1>
      <Async q={q} what="data tables">
        {(d) => {
          const tables = d.dataTables?.data ?? [];
          const current = selected ?? tables[0]?.id;
          return !current ? (
            <Empty title="No data tables yet">
              <p>Create one through the API (createDataTable, see docs/data-tables.md); it shows here for editing and import.</p>
            </Empty>
          ) : (
            <>
              <div className="filters">
                <label>
                  Table{' '}
                  <select value={current} onChange={(e) => setSelected(e.target.value)}>
                    {tables.map((t) => (
                      <option key={t.id} value={t.id}>
                        {t.name} ({plural(t.rowCount, 'row')})
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              <section className="card" aria-label="Rows">
                <Grid key={current} tableId={current} onChanged={q.reload} />
              </section>
            </>
          );
        }}
      </Async>
    </section>
  );
}
