/**
 * Filtered totalCount after writes: the in-memory filter (rowMatches) agrees with the store on
 * random rows and filters, and counts carried across this process's writes stay equal to a full
 * recount through every kind of write, without recounting.
 */
import fc from 'fast-check';
import type { DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createDataTablesSubgraph } from '../../../app.js';
import { validateRowData } from '../../../domain/cells.js';
import { parseRowFilter } from '../../../domain/row-query.js';
import { rowMatches } from '../../../domain/row-match.js';

type Obj = Record<string, any>;
const who = testPrincipal('acc-counts');
let store: DocumentStore;
let sg: ReturnType<typeof createDataTablesSubgraph>;
const run = subgraphRunner(() => sg, who);
let fullCounts = 0;

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-dt-counts-');
  sg = createDataTablesSubgraph({ documents: store, tokens: testTokens, historyLimit: 1000 });
  // Counts how often a filtered count reaches the store (the thing the carried counts avoid).
  const countRows = sg.repo.countRows.bind(sg.repo);
  sg.repo.countRows = (...args) => {
    fullCounts++;
    return countRows(...args);
  };
});
afterAll(() => store.close());

async function ok(query: string, variables: Obj = {}): Promise<Obj> {
  const r = await run(query, variables);
  expect(r.errors).toBeUndefined();
  return r.data as Obj;
}

const COLUMNS = [
  { name: 'Name', key: 'name', type: 'TEXT', sortable: true },
  { name: 'Price', key: 'price', type: 'NUMBER', sortable: true },
  { name: 'Vegan', key: 'vegan', type: 'BOOLEAN' },
  { name: 'Day', key: 'day', type: 'DATE' },
];
const columnsOf = async (tableId: string) => (await sg.repo.getTable(who.accountId, tableId))!.columns;

const cellArb = {
  name: fc.option(fc.constantFrom('Apple', 'apple pie', 'Banana', 'cherry', 'Ünïcode', 'a.b*c', ''), { nil: null }),
  price: fc.option(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(0, 2.5, -0.5)), { nil: null }),
  vegan: fc.option(fc.boolean(), { nil: null }),
  day: fc.option(fc.constantFrom('2026-01-01', '2026-06-15', '2026-06-15T12:00:00Z', '2027-03-01'), { nil: null }),
};
const dataArb = fc.record(cellArb, { requiredKeys: [] });

/** A random filter over the four columns, written as a client would. */
const filterArb = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constant('name'), fc.oneof(fc.constantFrom('apple', 'Banana', null), fc.record({ contains: fc.constantFrom('APP', 'an', '.', '*') }))),
      fc.tuple(fc.constant('name'), fc.oneof(fc.record({ notContains: fc.constantFrom('a', 'pie') }), fc.record({ isEmpty: fc.boolean() }))),
      fc.tuple(fc.constant('name'), fc.record({ neq: fc.constantFrom('cherry', 'apple pie') })),
      fc.tuple(fc.constant('name'), fc.record({ gte: fc.constantFrom('a', 'B', 'banana') })),
      fc.tuple(fc.constant('price'), fc.oneof(fc.integer({ min: -3, max: 3 }), fc.record({ gt: fc.integer({ min: -3, max: 3 }) }))),
      fc.tuple(fc.constant('price'), fc.oneof(fc.record({ lte: fc.integer({ min: -3, max: 3 }) }), fc.record({ positive: fc.boolean() }))),
      fc.tuple(fc.constant('price'), fc.oneof(fc.record({ negative: fc.boolean() }), fc.record({ isEmpty: fc.boolean() }))),
      fc.tuple(fc.constant('price'), fc.oneof(fc.record({ inRange: fc.tuple(fc.integer({ min: -3, max: 0 }), fc.integer({ min: 0, max: 3 })) }))),
      fc.tuple(fc.constant('price'), fc.record({ outOfRange: fc.tuple(fc.integer({ min: -3, max: 0 }), fc.integer({ min: 0, max: 3 })) })),
      fc.tuple(fc.constant('vegan'), fc.oneof(fc.boolean(), fc.record({ neq: fc.boolean() }), fc.record({ isEmpty: fc.boolean() }))),
      fc.tuple(fc.constant('day'), fc.oneof(fc.constantFrom('2026-06-15'), fc.record({ lt: fc.constantFrom('2026-06-15', '2027-01-01') }))),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((parts) => JSON.stringify(Object.fromEntries(parts)));

async function newTable(): Promise<string> {
  const r = await ok('mutation($i: CreateDataTableInput!) { createDataTable(input: $i) { table { id } } }', {
    i: { name: `C ${Math.random()}`, columns: COLUMNS },
  });
  return r.createDataTable.table.id as string;
}

test('property: the in-memory filter agrees with the store on random rows and filters', async () => {
  const tableId = await newTable();
  const columns = await columnsOf(tableId);
  const rows = fc.sample(dataArb, { numRuns: 150, seed: 7 }).map((d) => validateRowData(columns, d));
  const batch = await ok('mutation($i: BatchCreateDataTableRowsInput!) { batchCreateDataTableRows(input: $i) { successCount } }', {
    i: { tableId, rows: rows.slice(0, 100).map((data) => ({ data })) },
  });
  await ok('mutation($i: BatchCreateDataTableRowsInput!) { batchCreateDataTableRows(input: $i) { successCount } }', {
    i: { tableId, rows: rows.slice(100).map((data) => ({ data })) },
  });
  expect(batch.batchCreateDataTableRows.successCount).toBe(100);
  await fc.assert(
    fc.asyncProperty(filterArb, async (text) => {
      const conditions = parseRowFilter(columns, text);
      const inStore = await sg.repo.countRows(who.accountId, tableId, conditions);
      expect(rows.filter((d) => rowMatches(conditions, d)).length).toBe(inStore);
    }),
    { numRuns: 200 },
  );
});

test('property: counts carried across every kind of write equal a full recount, and are not recounted', async () => {
  const ROWS = `query($t: String!, $f: String) { dataTableRows(tableId: $t, filter: $f, pageSize: 1) { totalCount } }`;
  const op = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), data: dataArb }),
    fc.record({ kind: fc.constant('batch' as const), rows: fc.array(dataArb, { minLength: 1, maxLength: 5 }) }),
    fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), data: dataArb }),
    fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('batchDelete' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('rollback' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('reorder' as const), pick: fc.nat() }),
    fc.record({ kind: fc.constant('import' as const), price: fc.integer({ min: -3, max: 3 }) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(filterArb, { minLength: 1, maxLength: 3 }), fc.array(op, { minLength: 1, maxLength: 10 }), async (filters, ops) => {
      const tableId = await newTable();
      const columns = await columnsOf(tableId);
      const ids: string[] = [];
      const pick = (n: number) => ids[n % ids.length];
      const counted = async () => {
        for (const f of filters) {
          const got = (await ok(ROWS, { t: tableId, f })).dataTableRows.totalCount as number;
          const before = fullCounts;
          expect(got).toBe(await sg.repo.countRows(who.accountId, tableId, parseRowFilter(columns, f)));
          fullCounts = before;
        }
      };
      await counted(); // the first read of each filter counts in full
      const afterFirst = fullCounts;
      for (const o of ops) {
        if (o.kind === 'create') {
          const r = await ok('mutation($i: CreateDataTableRowInput!) { createDataTableRow(input: $i) { row { id } } }', { i: { tableId, data: o.data } });
          ids.push(r.createDataTableRow.row.id);
        } else if (o.kind === 'batch') {
          const r = await ok('mutation($i: BatchCreateDataTableRowsInput!) { batchCreateDataTableRows(input: $i) { results { rowId } } }', {
            i: { tableId, rows: o.rows.map((data) => ({ data })) },
          });
          ids.push(...r.batchCreateDataTableRows.results.map((x: Obj) => x.rowId));
        } else if (o.kind === 'import') {
          const r = await ok('mutation($i: ImportDataTableRowsInput!) { importDataTableRows(input: $i) { imported } }', {
            i: { tableId, csv: `name,price\nimported,${o.price}\n,${o.price + 1}\n` },
          });
          expect(r.importDataTableRows.imported).toBe(2);
        } else if (!ids.length) {
          continue;
        } else if (o.kind === 'update') {
          await ok('mutation($i: UpdateDataTableRowInput!) { updateDataTableRow(input: $i) { success } }', {
            i: { tableId, rowId: pick(o.pick), data: o.data },
          });
        } else if (o.kind === 'delete') {
          await ok('mutation($t: String!, $r: String!) { deleteDataTableRow(tableId: $t, rowId: $r) { success } }', { t: tableId, r: pick(o.pick) });
        } else if (o.kind === 'batchDelete') {
          await ok('mutation($i: BatchDeleteDataTableRowsInput!) { batchDeleteDataTableRows(input: $i) { successCount } }', {
            i: { tableId, rowIds: [pick(o.pick), pick(o.pick + 1)] },
          });
        } else if (o.kind === 'rollback') {
          await ok('mutation($i: RollbackDataTableRowInput!) { rollbackDataTableRow(input: $i) { success } }', {
            i: { tableId, rowId: pick(o.pick), version: 1 },
          });
        } else if (o.kind === 'reorder') {
          await ok('mutation($i: ReorderDataTableRowsInput!) { reorderDataTableRows(input: $i) { success } }', {
            i: { tableId, rowIds: [pick(o.pick)], afterRowId: null },
          });
        }
        await counted();
      }
      // Every count after the first reads was carried across the writes, none recounted.
      expect(fullCounts).toBe(afterFirst);
    }),
    { numRuns: 30 },
  );
}, 120_000);
