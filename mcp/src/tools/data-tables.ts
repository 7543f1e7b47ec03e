/** Data-table rows: paged reads, edits that report the columns they changed, deletes that need confirm. */
import { z } from 'zod';
import { documents as d, payload, type PylonClient } from '@pylon/client';
import { confirmArg, defineTool, needsConfirm, refuse } from '../tool.js';

export const MAX_ROWS_PAGE = 50;

const row = z.object({ id: z.string(), version: z.number().int(), data: z.record(z.string(), z.unknown()), updatedAt: z.string().optional() });
const tableId = z.string().min(1).max(200).describe('The data table id.');
const rowId = z.string().min(1).max(200).describe('The row id.');

async function readRow(client: PylonClient, table: string, id: string) {
  const r = await client.graphql(d.TableRowDocument, { tableId: table, rowId: id });
  if (!r.ok) return r;
  if (!r.value.dataTableRow) return refuse('NOT_FOUND', `no row ${id} in table ${table} of your account`);
  return { ok: true as const, value: { ...r.value.dataTableRow, data: r.value.dataTableRow.data as Record<string, unknown> } };
}

export const readTableRows = defineTool({
  name: 'read_table_rows',
  title: 'Read data-table rows',
  kind: 'read',
  description: `Reads rows of one data table (menus, prices, ...), ${MAX_ROWS_PAGE} at most per call, with each row's version (needed to edit it).
filter is the table's filter expression (as the REST rows endpoint takes it). nextCursor pages on (null on the last page); total counts every matching row.`,
  input: {
    tableId,
    filter: z.string().max(500).optional().describe('Filter expression, e.g. price gt 5.'),
    pageSize: z.number().int().min(1).max(MAX_ROWS_PAGE).optional().describe(`Rows per page, default 20, at most ${MAX_ROWS_PAGE}.`),
    cursor: z.string().max(2000).optional().describe('nextCursor of the previous page.'),
  },
  output: { rows: z.array(row), total: z.number().int(), nextCursor: z.string().nullable() },
  async run(client, i) {
    const r = await client.graphql(d.TableRowsDocument, {
      tableId: i.tableId,
      filter: i.filter ?? null,
      pageSize: i.pageSize ?? 20,
      continuationToken: i.cursor ?? null,
    });
    if (!r.ok) return r;
    const page = r.value.dataTableRows;
    if (!page) return refuse('NOT_FOUND', `no table ${i.tableId} in your account`);
    return {
      ok: true,
      value: {
        rows: page.data.map((x) => ({ ...x, data: x.data as Record<string, unknown> })),
        total: page.totalCount,
        nextCursor: page.continuationToken ?? null,
      },
    };
  },
});

export const editTableRow = defineTool({
  name: 'edit_table_row',
  title: 'Edit a data-table row',
  kind: 'write',
  description: `Changes columns of one row: data holds the columns to set (others stay as they are). Pass the version read_table_rows answered:
if someone changed the row since, the edit is refused (CONFLICT) rather than overwriting their change; read it again and retry.
Answers exactly which columns changed, from what to what, and the row's new version.`,
  input: {
    tableId,
    rowId,
    data: z.record(z.string(), z.unknown()).describe('Column name -> new value.'),
    version: z.number().int().min(0).optional().describe('The version you read; strongly advised.'),
  },
  output: {
    row,
    previousVersion: z.number().int(),
    changed: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
  },
  async run(client, i) {
    const before = await readRow(client, i.tableId, i.rowId);
    if (!before.ok) return before;
    const r = await client.graphql(d.UpdateTableRowDocument, {
      input: { tableId: i.tableId, rowId: i.rowId, data: { ...before.value.data, ...i.data }, version: i.version ?? before.value.version },
    });
    if (!r.ok) return r;
    const p = payload(r.value.updateDataTableRow);
    if (!p.ok) return p;
    const after = { ...p.value.row!, data: p.value.row!.data as Record<string, unknown> };
    const changed: Record<string, { from: unknown; to: unknown }> = {};
    for (const k of new Set([...Object.keys(before.value.data), ...Object.keys(after.data)]))
      if (JSON.stringify(before.value.data[k]) !== JSON.stringify(after.data[k]))
        changed[k] = { from: before.value.data[k] ?? null, to: after.data[k] ?? null };
    return { ok: true, value: { row: after, previousVersion: before.value.version, changed } };
  },
});

export const deleteTableRow = defineTool({
  name: 'delete_table_row',
  title: 'Delete a data-table row',
  kind: 'destructive',
  description: `Deletes one row of a data table. Changes nothing unless confirm is true: without it, it answers the row it would delete.
Screens showing the table stop showing the row at their next refresh. Pass the version you read to refuse a row changed since (CONFLICT).`,
  input: { tableId, rowId, version: z.number().int().min(0).optional(), confirm: confirmArg },
  output: { deleted: row },
  async run(client, i) {
    const before = await readRow(client, i.tableId, i.rowId);
    if (!before.ok) return before;
    if (i.confirm !== true)
      return needsConfirm(
        `This would delete row ${i.rowId} (version ${before.value.version}) of table ${i.tableId}: ${JSON.stringify(before.value.data).slice(0, 300)}.`,
      );
    const r = await client.graphql(d.DeleteTableRowDocument, { tableId: i.tableId, rowId: i.rowId, version: i.version ?? before.value.version });
    if (!r.ok) return r;
    const p = payload(r.value.deleteDataTableRow);
    if (!p.ok) return p;
    return { ok: true, value: { deleted: before.value } };
  },
});
