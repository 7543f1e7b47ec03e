/**
 * datatable.rows_changed from every row-changing path besides single writes and batches: an import
 * (one event for the whole import: the first 100 row ids and row_count), a reorder (the moved
 * rows) and a rollback (the restored row); a refused import stores nothing and announces nothing.
 */
import { pushEvent, type DocumentStore, type PushEvent, type PushEvents } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createDataTablesSubgraph } from '../src/app.js';

let store: DocumentStore;
let sg: ReturnType<typeof createDataTablesSubgraph>;
const cache = createMemoryCache();
const seen: PushEvent<'datatable.rows_changed'>[] = [];
const events: PushEvents = { emit: (account, type, data, at) => void seen.push(pushEvent(account, type, data, at) as PushEvent<'datatable.rows_changed'>) };
const run = subgraphRunner(() => sg, testPrincipal('acc-a'));
async function ok(query: string, variables: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await run(query, variables);
  expect(r.errors).toBeUndefined();
  return r.data as Record<string, any>;
}

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-dt-push-');
  sg = createDataTablesSubgraph({ documents: store, tokens: testTokens, cache, historyLimit: 100, pushEvents: events });
});
afterAll(async () => {
  await cache.close();
  await store.close();
});

test('import, reorder and rollback each announce datatable.rows_changed', async () => {
  const t = (
    await ok('mutation { createDataTable(input: { name: "Push", columns: [{ name: "N", key: "n", type: NUMBER, required: true }] }) { table { id } } }')
  ).createDataTable.table.id as string;
  const IMPORT = 'mutation($input: ImportDataTableRowsInput!) { importDataTableRows(input: $input) { success error imported failed } }';
  const csv = `n\n${Array.from({ length: 150 }, (_, i) => (i === 7 ? 'x' : String(i))).join('\n')}\n`;
  expect((await ok(IMPORT, { input: { tableId: t, csv } })).importDataTableRows).toMatchObject({ success: true, imported: 149, failed: 1 });
  const imported = seen.filter((e) => e.data.change === 'imported');
  expect(imported).toHaveLength(1);
  expect(imported[0]).toMatchObject({ account_id: 'acc-a', data: { datatable_id: t, row_count: 149 } });
  expect(imported[0]!.data.row_ids).toHaveLength(100);

  const before = seen.length;
  expect((await ok(IMPORT, { input: { tableId: t, csv: 'colour\nred\n' } })).importDataTableRows.success).toBe(false);
  expect(seen.length).toBe(before);

  const rows = (await ok('query($t: String!) { dataTableRows(tableId: $t, pageSize: 3) { data { id version } } }', { t })).dataTableRows.data as {
    id: string;
    version: number;
  }[];
  const REORDER = 'mutation($input: ReorderDataTableRowsInput!) { reorderDataTableRows(input: $input) { success moved } }';
  expect((await ok(REORDER, { input: { tableId: t, rowIds: [rows[2]!.id, rows[1]!.id] } })).reorderDataTableRows).toMatchObject({ success: true, moved: 2 });
  expect(seen.filter((e) => e.data.change === 'reordered').map((e) => e.data)).toEqual([
    { datatable_id: t, change: 'reordered', row_ids: [rows[2]!.id, rows[1]!.id], row_count: 2 },
  ]);

  await ok('mutation($input: UpdateDataTableRowInput!) { updateDataTableRow(input: $input) { success } }', {
    input: { tableId: t, rowId: rows[0]!.id, data: { n: 1000 } },
  });
  const ROLLBACK = 'mutation($input: RollbackDataTableRowInput!) { rollbackDataTableRow(input: $input) { success error newVersion } }';
  expect((await ok(ROLLBACK, { input: { tableId: t, rowId: rows[0]!.id, version: 1 } })).rollbackDataTableRow).toMatchObject({ success: true });
  expect(seen.filter((e) => e.data.change === 'rolled_back').map((e) => e.data)).toEqual([
    { datatable_id: t, change: 'rolled_back', row_ids: [rows[0]!.id], row_count: 1 },
  ]);
});
