/** where / order on dataTableRowVersions: known answers (incl. a CREATE version not yet stored), refusals, tenancy. */
import { POLICIES, type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createDataTablesSubgraph } from '../../../app.js';

type Obj = Record<string, any>;
let store: DocumentStore;
let sg: ReturnType<typeof createDataTablesSubgraph>;
const cache = createMemoryCache();
const ann = testPrincipal('acc-a', POLICIES, 'u-ann');
const bob = testPrincipal('acc-a', POLICIES, 'u-bob');
const run = subgraphRunner(() => sg, ann);

async function data(query: string, variables: Obj, who = ann): Promise<Obj> {
  const r = await run(query, variables, who);
  if (r.errors) throw new Error(r.errors[0]!.message);
  return r.data as Obj;
}

const VERSIONS = `query($t: String!, $r: String!, $where: DataTableRowVersionFilterInput, $order: [DataTableRowVersionSortInput!]) {
  dataTableRowVersions(tableId: $t, rowId: $r, where: $where, order: $order) { version change userId updatedAt data } }`;

let table: string;
let edited: string;
let fresh: string;
beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-dt-versions-');
  sg = createDataTablesSubgraph({ documents: store, tokens: testTokens, cache, historyLimit: 1000 });
  const t = await data('mutation($i: CreateDataTableInput!) { createDataTable(input: $i) { table { id } } }', {
    i: { name: 'Menu', columns: [{ name: 'Dish', key: 'dish', type: 'TEXT' }] },
  });
  table = t.createDataTable.table.id;
  const create = async (dish: string) =>
    (await data('mutation($i: CreateDataTableRowInput!) { createDataTableRow(input: $i) { row { id } } }', { i: { tableId: table, data: { dish } } }))
      .createDataTableRow.row.id as string;
  const update = async (rowId: string, dish: string, who = ann) =>
    data('mutation($i: UpdateDataTableRowInput!) { updateDataTableRow(input: $i) { success } }', { i: { tableId: table, rowId, data: { dish } } }, who);
  edited = await create('Soup');
  await update(edited, 'Stew', bob);
  await update(edited, 'Curry');
  await data('mutation($t: String!, $r: String!) { deleteDataTableRow(tableId: $t, rowId: $r) { success } }', { t: table, r: edited });
  fresh = await create('Bread'); // never changed: its CREATE version is carried by the row, not stored yet
});
afterAll(async () => {
  await cache.close();
  await store.close();
});

const versions = async (rowId: string, v: Obj = {}, who = ann) =>
  ((await data(VERSIONS, { t: table, r: rowId, ...v }, who)).dataTableRowVersions as Obj[]).map((x) => x.version);

test('default newest first; order by any field in either direction', async () => {
  expect(await versions(edited)).toEqual([4, 3, 2, 1]);
  expect(await versions(edited, { order: [{ version: 'ASC' }] })).toEqual([1, 2, 3, 4]);
  expect(await versions(edited, { order: [{ updatedAt: 'ASC' }] })).toEqual([1, 2, 3, 4]);
  expect(await versions(edited, { order: [{ change: 'ASC' }] })).toEqual([1, 4, 3, 2]);
  expect(await versions(edited, { order: [{ userId: 'DESC' }, { version: 'ASC' }] })).toEqual([2, 1, 3, 4]);
});

test('where on change, version, user and time', async () => {
  expect(await versions(edited, { where: { change: { eq: 'UPDATE' } } })).toEqual([3, 2]);
  expect(await versions(edited, { where: { version: { gte: 2, lt: 4 } }, order: [{ version: 'ASC' }] })).toEqual([2, 3]);
  expect(await versions(edited, { where: { userId: { eq: 'u-bob' } } })).toEqual([2]);
  expect(await versions(edited, { where: { or: [{ change: { in: ['DELETE'] } }, { userId: { eq: 'u-bob' } }] } })).toEqual([4, 2]);
  expect(await versions(edited, { where: { updatedAt: { gte: '2000-01-01T00:00:00Z' } } })).toEqual([4, 3, 2, 1]);
  expect(await versions(edited, { where: { updatedAt: { lt: '2000-01-01T00:00:00Z' } } })).toEqual([]);
  const deleted = (await data(VERSIONS, { t: table, r: edited, where: { change: { eq: 'DELETE' } } })).dataTableRowVersions as Obj[];
  expect(deleted).toEqual([expect.objectContaining({ version: 4, change: 'DELETE', userId: 'u-ann', data: { dish: 'Curry' } })]);
});

test('a row that never changed: its CREATE version is filtered like a stored one', async () => {
  expect(await versions(fresh, { where: { change: { eq: 'UPDATE' } } })).toEqual([]);
  const [v] = (await data(VERSIONS, { t: table, r: fresh, where: { change: { eq: 'CREATE' }, updatedAt: { gte: '2000-01-01T00:00:00Z' } } }))
    .dataTableRowVersions as Obj[];
  expect(v).toMatchObject({ version: 1, change: 'CREATE', userId: 'u-ann', data: { dish: 'Bread' } });
  // The plain listing answers the same version.
  expect(await versions(fresh)).toEqual([1]);
});

test('refusals name the field; an unknown row is NOT_FOUND with or without where', async () => {
  const unknown = await run(VERSIONS, { t: table, r: edited, where: { data: { eq: 'x' } } });
  expect(unknown.errors?.[0]?.message).toContain('data');
  await expect(sg.runtime.repo.searchVersions('acc-a', table, edited, { where: { data: { eq: 'x' } } })).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    details: { field: 'where.data' },
  });
  await expect(sg.runtime.repo.searchVersions('acc-a', table, edited, { order: [{ data: 'ASC' }] })).rejects.toMatchObject({
    details: { field: 'order.data' },
  });
  const badDate = await run(VERSIONS, { t: table, r: edited, where: { updatedAt: { gt: 'a while ago' } } });
  expect(badDate.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'where.updatedAt' });
  const missing = await run(VERSIONS, { t: table, r: 'no-such-row', where: { change: { eq: 'CREATE' } } });
  expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
});

test("another account cannot read this table's history", async () => {
  const other = await run(VERSIONS, { t: table, r: edited, where: { change: { eq: 'UPDATE' } } }, testPrincipal('acc-b'));
  expect(other.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  expect(other.data?.dataTableRowVersions ?? null).toBeNull();
});
