/**
 * A template module's dataTableId (a menu board) must name a data table of the caller's account,
 * on create and on update: another account's table and an unknown id are refused naming the
 * module's field, and a deployment that cannot check (no DataTableDirectory) refuses rather than
 * storing an unchecked id. The directory stands in for the datatables service with a fixed table
 * per account (the HTTP adapter is tested against a real datatables app in
 * gateway/test/datatables-internal.contract.test.ts, the in-process one through the all-in-one).
 */
import type { DataTableDirectory } from '../../../ports/data-table-directory.js';
import { principal, startContent, type ContentFixture } from '../../../../test/fixtures/content.js';

const TABLES: Record<string, string[]> = { 'acc-a': ['table-a'], 'acc-b': ['table-b'] };
const asked: { accountId: string; ids: string[] }[] = [];
const tables: DataTableDirectory = {
  existing: async (accountId, ids) => {
    asked.push({ accountId, ids: [...ids] });
    return new Set(ids.filter((id) => TABLES[accountId]?.includes(id)));
  },
};

let f: ContentFixture;
let unchecked: ContentFixture;
beforeAll(async () => {
  f = await startContent({}, { dataTables: tables });
  unchecked = await startContent();
});
afterAll(async () => {
  await f?.close();
  await unchecked?.close();
});

const CREATE = 'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { success errorCode errorField template { id modules { dataTableId } } } }';
const board = (dataTableId: string) => ({
  name: 'Menu',
  width: 100,
  height: 100,
  modules: [
    { left: 0, top: 0, width: 50, height: 100 },
    { left: 50, top: 0, width: 50, height: 100, dataTableId },
  ],
});

test("a module showing the account's own table is saved; the directory is asked with the caller's account", async () => {
  const r = await f.run(CREATE, { i: board('table-a') });
  expect(r.data!.createTemplate).toMatchObject({ success: true, template: { modules: [{ dataTableId: null }, { dataTableId: 'table-a' }] } });
  expect(asked.at(-1)).toEqual({ accountId: 'acc-a', ids: ['table-a'] });
});

test("another account's table or an unknown id is refused, naming the module's field, on create and on update", async () => {
  expect((await f.run(CREATE, { i: board('table-b') })).data!.createTemplate).toMatchObject({
    success: false,
    errorCode: 'BAD_USER_INPUT',
    errorField: 'modules[1].dataTableId',
  });
  expect((await f.run(CREATE, { i: board('missing') })).data!.createTemplate).toMatchObject({ success: false, errorField: 'modules[1].dataTableId' });
  // Account B may use its own table, not A's.
  expect((await f.run(CREATE, { i: board('table-b') }, principal('acc-b'))).data!.createTemplate).toMatchObject({ success: true });
  const id = ((await f.run(CREATE, { i: board('table-a') })).data!.createTemplate as { template: { id: string } }).template.id;
  const upd = await f.run(`mutation($i: UpdateTemplateInput!) { updateTemplate(id: "${id}", input: $i) { success errorField } }`, { i: board('table-b') });
  expect(upd.data!.updateTemplate).toMatchObject({ success: false, errorField: 'modules[1].dataTableId' });
});

test('without a directory a module naming a data table is refused (UNAVAILABLE), one without is saved', async () => {
  expect((await unchecked.run(CREATE, { i: board('table-a') })).data!.createTemplate).toMatchObject({ success: false, errorCode: 'UNAVAILABLE' });
  expect(
    (await unchecked.run(CREATE, { i: { name: 'Plain', width: 10, height: 10, modules: [{ left: 0, top: 0, width: 10, height: 10 }] } })).data!.createTemplate,
  ).toMatchObject({
    success: true,
  });
});
