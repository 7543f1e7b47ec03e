/**
 * Every write that changes a table is announced on CHANNELS.dataTablesChanged (menu-board screens
 * re-read their rows through the devices service's long-poll): row create, update and delete, a
 * definition change, coalesced per account so a burst of writes is one event; reads and refused
 * writes announce nothing; events name the writer's account only.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHANNELS, isDataTablesChangedEvent, type DataTablesChangedEvent, type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createMemoryPubSub, createMemoryPubSubHub } from '@pylon/adapters/memory';
import { createDataTablesSubgraph } from '../../../app.js';
import { COALESCE_MS } from '../table-changes.js';

let dir: string;
let store: DocumentStore;
const hub = createMemoryPubSubHub();
const bus = createMemoryPubSub(hub);
const listener = createMemoryPubSub(hub);
const events: DataTablesChangedEvent[] = [];
let sg: ReturnType<typeof createDataTablesSubgraph>;
const run = subgraphRunner(() => sg, testPrincipal('acc-a'));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-dt-changes-'));
  store = await createLmdbDocumentStore({ path: join(dir, 'documents') });
  sg = createDataTablesSubgraph({ documents: store, tokens: testTokens, pubsub: bus });
  await listener.subscribe(CHANNELS.dataTablesChanged, (m) => {
    if (isDataTablesChangedEvent(m)) events.push(m);
  });
});
afterAll(async () => {
  await bus.close();
  await listener.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const settle = () => new Promise((r) => setTimeout(r, COALESCE_MS * 4));
const ok = async (query: string, variables: Record<string, unknown> = {}) => {
  const r = await run(query, variables);
  expect(r.errors).toBeUndefined();
  return r.data as Record<string, any>;
};

test('row and definition writes are announced (coalesced); reads and refused writes are not', async () => {
  const tableId = (
    await ok('mutation { createDataTable(input: { name: "Menu", columns: [{ name: "Dish", key: "dish", type: TEXT, required: true }] }) { table { id } } }')
  ).createDataTable.table.id as string;
  await settle();
  events.length = 0;
  const row = (await ok('mutation($i: CreateDataTableRowInput!) { createDataTableRow(input: $i) { row { id } } }', { i: { tableId, data: { dish: 'Soup' } } }))
    .createDataTableRow.row.id as string;
  await settle();
  expect(events).toEqual([{ accountId: 'acc-a', tableIds: [tableId] }]);

  // A burst: one event.
  events.length = 0;
  await Promise.all(
    ['Stew', 'Pie', 'Salad'].map((dish) =>
      ok('mutation($i: UpdateDataTableRowInput!) { updateDataTableRow(input: $i) { success } }', { i: { tableId, rowId: row, data: { dish } } }),
    ),
  );
  await settle();
  expect(events).toEqual([{ accountId: 'acc-a', tableIds: [tableId] }]);

  // Reads and a refused write (required value missing): nothing.
  events.length = 0;
  await ok('query($t: String!) { dataTableRows(tableId: $t) { totalCount } }', { t: tableId });
  const refused = await ok('mutation($i: CreateDataTableRowInput!) { createDataTableRow(input: $i) { success } }', { i: { tableId, data: {} } });
  expect(refused.createDataTableRow.success).toBe(false);
  await settle();
  expect(events).toEqual([]);

  await ok('mutation($t: String!, $r: String!) { deleteDataTableRow(tableId: $t, rowId: $r) { success } }', { t: tableId, r: row });
  await settle();
  expect(events).toEqual([{ accountId: 'acc-a', tableIds: [tableId] }]);
});
