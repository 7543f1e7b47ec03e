import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { type DocumentStore } from '@pylon/kit';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { createMemoryCache } from '@pylon/adapters/memory';
import { createDataTablesSubgraph } from '../../../app.js';

const principal = testPrincipal;
let dir: string;
let store: DocumentStore;
let sg: ReturnType<typeof createDataTablesSubgraph>;
const cache = createMemoryCache();
const run = subgraphRunner(() => sg, principal('acc-a'));

type Obj = Record<string, unknown>;
async function ok(query: string, variables: Obj = {}, who = principal('acc-a')): Promise<Obj> {
  const r = await run(query, variables, who);
  expect(r.errors).toBeUndefined();
  return r.data as Obj;
}
async function mutate(name: string, query: string, variables: Obj = {}, who = principal('acc-a')): Promise<Obj> {
  return (await ok(query, variables, who))[name] as Obj;
}

const COLUMNS = [
  { name: 'Dish', key: 'dish', type: 'TEXT', required: true, sortable: true },
  { name: 'Price', key: 'price', type: 'NUMBER', sortable: true },
  { name: 'Vegan', key: 'vegan', type: 'BOOLEAN' },
  { name: 'Served', key: 'served', type: 'DATE', sortable: true },
  { name: 'Photo', key: 'photo', type: 'IMAGE' },
  { name: 'Note', key: 'note', type: 'HIDDEN' },
];

const CREATE_TABLE = `mutation($input: CreateDataTableInput!) { createDataTable(input: $input) { success error errorCode errorField table { id name columns { id key name type required sortable } } } }`;
const CREATE_ROW = `mutation($input: CreateDataTableRowInput!) { createDataTableRow(input: $input) { success error errorCode errorField row { id data version sortOrder updatedAt } } }`;
const UPDATE_ROW = `mutation($input: UpdateDataTableRowInput!) { updateDataTableRow(input: $input) { success error errorCode errorField row { id data version } } }`;
const DELETE_ROW = `mutation($t: String!, $r: String!, $v: Int) { deleteDataTableRow(tableId: $t, rowId: $r, version: $v) { success error errorCode rowId version } }`;
const ROLLBACK = `mutation($input: RollbackDataTableRowInput!) { rollbackDataTableRow(input: $input) { success error errorCode newVersion restoredRow { id data version } } }`;
const BATCH = `mutation($input: BatchCreateDataTableRowsInput!) { batchCreateDataTableRows(input: $input) { success error errorCode errorField successCount failureCount results { index rowId success error } } }`;
const BATCH_DELETE = `mutation($input: BatchDeleteDataTableRowsInput!) { batchDeleteDataTableRows(input: $input) { success error errorField successCount failureCount results { rowId success error } } }`;
const ROWS = `query($t: String!, $f: String, $s: String, $d: String, $n: Int, $c: String) { dataTableRows(tableId: $t, filter: $f, sort: $s, sortDir: $d, pageSize: $n, continuationToken: $c) { totalCount continuationToken data { id data version sortOrder } } }`;

async function newTable(columns: unknown[] = COLUMNS, who = principal('acc-a'), extra: Obj = {}): Promise<string> {
  const p = await mutate('createDataTable', CREATE_TABLE, { input: { name: `T ${Math.random()}`, columns, ...extra } }, who);
  expect(p.error).toBeNull();
  return (p.table as Obj).id as string;
}
async function newRow(tableId: string, data: Obj, who = principal('acc-a')): Promise<Obj> {
  const p = await mutate('createDataTableRow', CREATE_ROW, { input: { tableId, data } }, who);
  expect(p.error).toBeNull();
  return p.row as Obj;
}
interface RowPage {
  totalCount: number;
  continuationToken: string | null;
  data: Array<{ id: string; data: Obj; version: number; sortOrder: number }>;
}
async function rows(t: string, v: Obj = {}): Promise<RowPage> {
  return (await ok(ROWS, { t, ...v })).dataTableRows as RowPage;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-dt-rows-'));
  store = await createLmdbDocumentStore({ path: dir });
  sg = createDataTablesSubgraph({ documents: store, tokens: testTokens, cache, historyLimit: 1000 });
});
afterAll(async () => {
  await cache.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('tables', () => {
  test('create returns columns with ids; bad column keys are refused naming the field', async () => {
    const p = await mutate('createDataTable', CREATE_TABLE, { input: { name: 'Menu', description: 'd', columns: COLUMNS } });
    expect(p).toMatchObject({ success: true, table: { name: 'Menu' } });
    expect(((p.table as Obj).columns as Obj[]).map((c) => c.key)).toEqual(COLUMNS.map((c) => c.key));
    for (const key of ['__proto__', 'a.b', '$where', 'has space', '', 'constructor']) {
      const bad = await mutate('createDataTable', CREATE_TABLE, { input: { name: 'x', columns: [{ name: 'c', key, type: 'TEXT' }] } });
      expect(bad).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: 'columns[0].key' });
    }
    const dup = await mutate('createDataTable', CREATE_TABLE, {
      input: {
        name: 'x',
        columns: [
          { name: 'a', key: 'k', type: 'TEXT' },
          { name: 'b', key: 'k', type: 'TEXT' },
        ],
      },
    });
    expect(dup).toMatchObject({ success: false, errorField: 'columns[1].key' });
    const noName = await mutate('createDataTable', CREATE_TABLE, { input: { name: ' ' } });
    expect(noName).toMatchObject({ success: false, errorField: 'name' });
  });

  test('update renames, retypes (refusing rows that do not fit, naming them, or migrating) and removes columns', async () => {
    const t = await newTable([
      { name: 'Code', key: 'code', type: 'TEXT' },
      { name: 'Gone', key: 'gone', type: 'TEXT' },
    ]);
    const good = await newRow(t, { code: '12', gone: 'x' });
    const bad = await newRow(t, { code: 'abc' });
    const def = (await ok('query($t: String!) { dataTable(tableId: $t) { columns { id key } } }', { t })).dataTable as {
      columns: Array<{ id: string; key: string }>;
    };
    const codeId = def.columns[0]!.id;
    const UPDATE = `mutation($input: UpdateDataTableInput!) { updateDataTable(input: $input) { success error errorCode errorField migratedRows table { name columns { key type } } } }`;
    const refuse = await mutate('updateDataTable', UPDATE, { input: { tableId: t, columns: [{ id: codeId, name: 'Number', key: 'num', type: 'NUMBER' }] } });
    expect(refuse).toMatchObject({ success: false, errorCode: 'UNPROCESSABLE', errorField: 'columns' });
    expect(refuse.error).toContain(bad.id as string);
    expect(refuse.error).not.toContain(good.id as string);
    const migrated = await mutate('updateDataTable', UPDATE, {
      input: { tableId: t, name: 'Renamed', onInvalidRows: 'MIGRATE', columns: [{ id: codeId, name: 'Number', key: 'num', type: 'NUMBER', sortable: true }] },
    });
    expect(migrated).toMatchObject({ success: true, migratedRows: 2, table: { name: 'Renamed', columns: [{ key: 'num', type: 'NUMBER' }] } });
    const page = await rows(t, { s: 'num' });
    expect(page.data.map((r) => r.data)).toEqual([{ num: null }, { num: 12 }]);
  });

  test('delete removes the table, its rows and their history', async () => {
    const t = await newTable();
    const r = await newRow(t, { dish: 'Soup' });
    const p = await mutate('deleteDataTable', 'mutation($t: String!) { deleteDataTable(tableId: $t) { success deletedRows tableId } }', { t });
    expect(p).toMatchObject({ success: true, deletedRows: 1, tableId: t });
    const again = await run('query($t: String!, $r: String!) { dataTableRowVersions(tableId: $t, rowId: $r) { version } }', { t, r: r.id });
    expect(again.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('rows', () => {
  let t: string;
  beforeAll(async () => {
    t = await newTable();
  });

  test('values are validated and coerced by column type', async () => {
    const r = await newRow(t, { dish: 'Soup', price: '12.50', vegan: 'yes', served: '2024-03-01', photo: 'https://x.example/a.png', note: 42 });
    expect(r.data).toEqual({ dish: 'Soup', price: 12.5, vegan: true, served: '2024-03-01T00:00:00Z', photo: 'https://x.example/a.png', note: '42' });
    expect(r.version).toBe(1);
    expect(r.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const cases: Array<[Obj, string]> = [
      [{ dish: 'x', price: 'cheap' }, 'data.price'],
      [{ dish: 'x', vegan: 'maybe' }, 'data.vegan'],
      [{ dish: 'x', served: '01/02/2024' }, 'data.served'],
      [{ dish: 'x', photo: 'javascript:alert(1)' }, 'data.photo'],
      [{ price: 1 }, 'data.dish'],
      [{ dish: 'x', unknown: 1 }, 'data.unknown'],
      [{ dish: 'x', __proto__: 1 } as Obj, 'data.dish'],
    ];
    for (const [data, field] of cases.slice(0, 6)) {
      const p = await mutate('createDataTableRow', CREATE_ROW, { input: { tableId: t, data } });
      expect(p).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: field });
      expect(p.error).toContain(field);
    }
    const notObject = await mutate('createDataTableRow', CREATE_ROW, { input: { tableId: t, data: [1] } });
    expect(notObject).toMatchObject({ success: false, errorField: 'data' });
  });

  test('partial update keeps other cells; a stale version is refused', async () => {
    const r = await newRow(t, { dish: 'Stew', price: 9 });
    const u = await mutate('updateDataTableRow', UPDATE_ROW, { input: { tableId: t, rowId: r.id, data: { price: 10 }, version: 1 } });
    expect(u).toMatchObject({ success: true, row: { data: { dish: 'Stew', price: 10 }, version: 2 } });
    const stale = await mutate('updateDataTableRow', UPDATE_ROW, { input: { tableId: t, rowId: r.id, data: { price: 11 }, version: 1 } });
    expect(stale).toMatchObject({ success: false, errorCode: 'VERSION_CONFLICT', errorField: 'version' });
    const staleDelete = await mutate('deleteDataTableRow', DELETE_ROW, { t, r: r.id, v: 1 });
    expect(staleDelete).toMatchObject({ success: false, errorCode: 'VERSION_CONFLICT' });
    const cleared = await mutate('updateDataTableRow', UPDATE_ROW, { input: { tableId: t, rowId: r.id, data: { dish: null } } });
    expect(cleared).toMatchObject({ success: false, errorField: 'data.dish' });
    const del = await mutate('deleteDataTableRow', DELETE_ROW, { t, r: r.id, v: 2 });
    expect(del).toMatchObject({ success: true, version: 3 });
    const gone = await run('query($t: String!, $r: String!) { dataTableRow(tableId: $t, rowId: $r) { id } }', { t, r: r.id });
    expect(gone.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // The history outlives the row: newest first.
    const h = await ok('query($t: String!, $r: String!) { dataTableRowVersions(tableId: $t, rowId: $r) { version change data } }', { t, r: r.id });
    expect((h.dataTableRowVersions as Obj[]).map((v) => [v.version, v.change])).toEqual([
      [3, 'DELETE'],
      [2, 'UPDATE'],
      [1, 'CREATE'],
    ]);
    // Rollback of a deleted row brings it back as a new version.
    const back = await mutate('rollbackDataTableRow', ROLLBACK, { input: { tableId: t, rowId: r.id, version: 1 } });
    expect(back).toMatchObject({ success: true, newVersion: 4, restoredRow: { id: r.id, data: { dish: 'Stew', price: 9 }, version: 4 } });
  });

  test('filters (equality and operators), sort and direction', async () => {
    const t2 = await newTable();
    const data = [
      { dish: 'Apple pie', price: 5, vegan: true },
      { dish: 'Beef', price: 20, vegan: false },
      { dish: 'Carrot', price: -1, vegan: true, note: 'x' },
      { dish: 'Dal', price: 0 },
      { dish: '=cmd', price: 12 },
    ];
    await mutate('batchCreateDataTableRows', BATCH, { input: { tableId: t2, rows: data.map((d) => ({ data: d })) } });
    const dishes = async (filter: Obj | null, sort?: string, dir?: string) =>
      (await rows(t2, { f: filter ? JSON.stringify(filter) : null, s: sort ?? null, d: dir ?? null })).data.map((r) => r.data.dish);
    expect(await dishes(null)).toEqual(['Apple pie', 'Beef', 'Carrot', 'Dal', '=cmd']);
    expect(await dishes({ vegan: true })).toEqual(['Apple pie', 'Carrot']);
    expect(await dishes({ vegan: 'true' })).toEqual(['Apple pie', 'Carrot']);
    expect(await dishes({ price: { gte: 5, lt: 20 } }, 'price')).toEqual(['Apple pie', '=cmd']);
    expect(await dishes({ price: { neq: 20 } }, 'price', 'desc')).toEqual(['=cmd', 'Apple pie', 'Dal', 'Carrot']);
    expect(await dishes({ dish: { contains: 'E' } }, 'dish')).toEqual(['Apple pie', 'Beef']);
    expect(await dishes({ dish: { notContains: 'e' } }, 'dish')).toEqual(['=cmd', 'Carrot', 'Dal']);
    expect(await dishes({ note: { isEmpty: false } })).toEqual(['Carrot']);
    expect(await dishes({ note: { isNotEmpty: false } }, 'price')).toEqual(['Carrot', 'Dal', 'Apple pie', '=cmd', 'Beef'].filter((d) => d !== 'Carrot'));
    expect(await dishes({ price: { positive: true } }, 'price')).toEqual(['Apple pie', '=cmd', 'Beef']);
    expect(await dishes({ price: { negative: true } })).toEqual(['Carrot']);
    expect(await dishes({ price: { inRange: [0, 5] } }, 'price')).toEqual(['Dal', 'Apple pie']);
    expect(await dishes({ price: { outOfRange: [0, 12] } }, 'price')).toEqual(['Carrot', 'Beef']);
    expect((await rows(t2, { f: JSON.stringify({ vegan: true }), n: 1 })).totalCount).toBe(2);
    expect((await rows(t2, { n: 1 })).totalCount).toBe(5);
    const bad: Array<[Obj, string]> = [
      [{ f: 'not json' }, 'filter'],
      [{ f: '[1]' }, 'filter'],
      [{ f: '{"nope":1}' }, 'filter'],
      [{ f: '{"price":{"like":1}}' }, 'filter'],
      [{ f: '{"price":{"gt":"x"}}' }, 'filter'],
      [{ f: '{"dish":{"positive":true}}' }, 'filter'],
      [{ s: 'nope' }, 'sort'],
      [{ d: 'up' }, 'sortDir'],
      [{ n: 101 }, 'pageSize'],
      [{ c: 'garbage!' }, 'continuationToken'],
    ];
    for (const [v, field] of bad) {
      const r = await run(ROWS, { t: t2, ...v });
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    // A token made for one sort is refused by another.
    const first = await rows(t2, { s: 'price', n: 2 });
    const r = await run(ROWS, { t: t2, s: 'dish', n: 2, c: first.continuationToken });
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'continuationToken' });
  });

  test('a long sort value makes a token that names the row; it pages on, and is refused once that row is gone', async () => {
    const t = await newTable();
    const ids: string[] = [];
    for (const c of ['a', 'b', 'c']) ids.push((await newRow(t, { dish: `${'é'.repeat(3000)}${c}` })).id as string);
    const seen: string[] = [];
    let c: string | null = null;
    const tokens: string[] = [];
    do {
      const page: RowPage = await rows(t, { s: 'dish', n: 1, c });
      seen.push(...page.data.map((r) => r.id));
      c = page.continuationToken;
      if (c) tokens.push(c);
    } while (c && seen.length < 10);
    expect(seen).toEqual(ids);
    // ~8,000 characters of values: the token names the row instead.
    for (const token of tokens) expect(token.length).toBeLessThanOrEqual(1024);
    expect((await mutate('deleteDataTableRow', DELETE_ROW, { t, r: ids[0] })).error).toBeNull();
    const r = await run(ROWS, { t, s: 'dish', n: 1, c: tokens[0] });
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'continuationToken' });
    expect(r.errors?.[0]?.message).toContain('deleted since; start again');
  });

  test('a numeric range on the sorted column, paged both ways, equals the rows computed by hand', async () => {
    const t = await newTable([
      { name: 'P', key: 'p', type: 'NUMBER', sortable: true },
      { name: 'Tag', key: 'tag', type: 'TEXT' },
    ]);
    const values = [5, null, 1, 9, 3, 3, 7, null, 2, 8, 6, 4, 10, 0, 3];
    const made: Array<{ id: string; p: number | null }> = [];
    for (const p of values) made.push({ id: (await newRow(t, { p, tag: 'x' })).id as string, p });
    const cases: Array<[Obj, 'asc' | 'desc', (p: number) => boolean]> = [
      [{ p: { gte: 3, lt: 8 } }, 'asc', (p) => p >= 3 && p < 8],
      [{ p: { gte: 3, lt: 8 } }, 'desc', (p) => p >= 3 && p < 8],
      [{ p: { inRange: [2, 4] }, tag: 'x' }, 'desc', (p) => p >= 2 && p <= 4],
      [{ p: 3 }, 'asc', (p) => p === 3],
      [{ p: { gt: 8 } }, 'desc', (p) => p > 8],
      [{ p: { lte: 1 } }, 'asc', (p) => p <= 1],
    ];
    for (const [filter, dir, keep] of cases) {
      const want = made
        .filter((r) => r.p !== null && keep(r.p))
        .sort((a, b) => (dir === 'asc' ? 1 : -1) * ((a.p as number) - (b.p as number) || (a.id < b.id ? -1 : 1)))
        .map((r) => r.id);
      const seen: string[] = [];
      let c: string | null = null;
      for (let guard = 0; guard < 20; guard++) {
        const page = await rows(t, { f: JSON.stringify(filter), s: 'p', d: dir, n: 2, c });
        expect(page.totalCount).toBe(want.length);
        seen.push(...page.data.map((r) => r.id));
        c = page.continuationToken;
        if (!c) break;
      }
      expect([filter, dir, seen]).toEqual([filter, dir, want]);
    }
  });

  test('property: every column sorts (issue 20, finding 11): a column without the sortable index pages exactly like an indexed copy of it', async () => {
    // The spec's createDataTable has no `sortable`: a client sorts by any column key.
    const t = await newTable([
      { name: 'N', key: 'n', type: 'NUMBER', sortable: true },
      { name: 'N plain', key: 'n_plain', type: 'NUMBER' },
      { name: 'S', key: 's', type: 'TEXT', sortable: true },
      { name: 'S plain', key: 's_plain', type: 'TEXT' },
    ]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ n: fc.option(fc.integer({ min: -5, max: 5 })), s: fc.option(fc.constantFrom('a', 'b', 'B', 'c', '10', '9')) }), { maxLength: 25 }),
        fc.constantFrom('asc', 'desc'),
        fc.integer({ min: 1, max: 7 }),
        fc.option(fc.constantFrom({ n: { gte: 0 } }, { s: { neq: 'a' } })),
        async (values, dir, n, filter) => {
          // A fresh set of rows per run: delete what the previous run made.
          for (const r of (await rows(t, { n: 100 })).data) await mutate('deleteDataTableRow', DELETE_ROW, { t, r: r.id });
          if (values.length) {
            const rowsIn = values.map((v) => ({ data: { n: v.n, n_plain: v.n, s: v.s, s_plain: v.s } }));
            await mutate('batchCreateDataTableRows', BATCH, { input: { tableId: t, rows: rowsIn } });
          }
          const walk = async (s: string) => {
            const ids: string[] = [];
            let c: string | null = null;
            for (let guard = 0; guard < 40; guard++) {
              const page = await rows(t, { s, d: dir, n, c, f: filter ? JSON.stringify(filter) : null });
              ids.push(...page.data.map((r) => r.id));
              c = page.continuationToken;
              if (!c) break;
            }
            return ids;
          };
          expect(await walk('n_plain')).toEqual(await walk('n'));
          expect(await walk('s_plain')).toEqual(await walk('s'));
        },
      ),
      { numRuns: 25 },
    );
  });

  test('an unindexed sort is bounded by the table size, with a message saying how to get the index', async () => {
    const { checkSortBounds, parseRowSort, UNINDEXED_SORT_MAX_ROWS } = await import('../../../domain/row-query.js');
    const columns = [
      { id: 'c1', name: 'A', key: 'a', type: 'TEXT' as const, required: false, sortable: true, slot: 0 },
      { id: 'c2', name: 'B', key: 'b', type: 'TEXT' as const, required: false, sortable: false, slot: null },
    ];
    const indexed = parseRowSort(columns as never, 'a', 'asc');
    const plain = parseRowSort(columns as never, 'b', 'desc');
    expect(indexed).toMatchObject({ path: 'ix.s0', indexed: true });
    expect(plain).toMatchObject({ path: 'data.b', indexed: false, dir: -1 });
    expect(() => checkSortBounds(indexed, 10_000_000)).not.toThrow();
    expect(() => checkSortBounds(plain, UNINDEXED_SORT_MAX_ROWS)).not.toThrow();
    expect(() => checkSortBounds(plain, UNINDEXED_SORT_MAX_ROWS + 1)).toThrow(/column 'b' has no sort index .* mark the column sortable/);
  });

  test('export: RFC 4180 CSV with formula cells escaped', async () => {
    const t3 = await newTable([
      { name: 'A', key: 'a', type: 'TEXT' },
      { name: 'N', key: 'n', type: 'NUMBER' },
    ]);
    await mutate('batchCreateDataTableRows', BATCH, {
      input: {
        tableId: t3,
        rows: [
          { data: { a: '=HYPERLINK("x")', n: -3 } },
          { data: { a: 'say "hi", then\nleave', n: 1.5 } },
          { data: { a: '@SUM(A1)' } },
          { data: { a: 'ünïcode' } },
        ],
      },
    });
    const csv = (await ok('query($t: String!) { exportDataTableRows(tableId: $t) }', { t: t3 })).exportDataTableRows as string;
    expect(csv).toBe(`a,n\r\n"'=HYPERLINK(""x"")",-3\r\n"say ""hi"", then\nleave",1.5\r\n'@SUM(A1),\r\nünïcode,\r\n`);

    // A store failure in the middle of an export ends the CSV stream with that error (the HTTP
    // router then cuts the response), never an unhandled 'error' event.
    const allRows = sg.repo.allRows.bind(sg.repo);
    sg.repo.allRows = async function* (...args) {
      yield* allRows(...args);
      throw new Error('store went away');
    };
    try {
      const { exportRowsCsv } = await import('../../import-export/export-rows.js');
      const stream = await exportRowsCsv(sg.runtime, principal('acc-a'), t3);
      await expect(
        (async () => {
          for await (const chunk of stream) void chunk;
        })(),
      ).rejects.toThrow('store went away');
    } finally {
      sg.repo.allRows = allRows;
    }
  });

  test('the GraphQL export (one string) is capped: a table past 10,000 rows is refused pointing at the streamed REST export (issue 20, finding 1)', async () => {
    const t = await newTable([{ name: 'N', key: 'n', type: 'NUMBER' }]);
    const IMPORT = 'mutation($input: ImportDataTableRowsInput!) { importDataTableRows(input: $input) { success error imported failed } }';
    const csv = `n\r\n${Array.from({ length: 10_001 }, (_, i) => i).join('\r\n')}\r\n`;
    expect(await mutate('importDataTableRows', IMPORT, { input: { tableId: t, csv } })).toMatchObject({ success: true, imported: 10_001 });
    const r = await run('query($t: String!) { exportDataTableRows(tableId: $t) }', { t });
    expect(r.errors?.[0]?.message).toMatch(
      new RegExp(
        `the table has 10001 rows; exportDataTableRows answers at most 10000 rows .*GET /datatables/${t}/rows/export instead \\(with Prefer: respond-async, or over EXPORT_JOB_THRESHOLD_ROWS rows, it answers 202 and runs as a job: follow GET /jobs/\\{id\\} or the job query to its signed download link; large imports likewise run as jobs: POST /datatables/${t}/rows/import answers 202, follow GET /jobs/\\{id\\}\\)`,
      ),
    );
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'tableId' });
    // One row fewer and it answers.
    const first = (await rows(t, { n: 1 })).data[0]!;
    await mutate('deleteDataTableRow', DELETE_ROW, { t, r: first.id });
    const csvOut = (await ok('query($t: String!) { exportDataTableRows(tableId: $t) }', { t })).exportDataTableRows as string;
    expect(csvOut.split('\r\n').filter(Boolean)).toHaveLength(10_001);
  });

  test('import: header by key or name, per-line errors, good rows kept', async () => {
    const t4 = await newTable([
      { name: 'Dish', key: 'dish', type: 'TEXT', required: true },
      { name: 'Price', key: 'price', type: 'NUMBER' },
    ]);
    const csv = 'Dish,price\r\nSoup,4\r\n,5\r\nTea,abc\r\n"Multi\nline",7\r\nPie,2.5\r\n';
    const IMPORT =
      'mutation($input: ImportDataTableRowsInput!) { importDataTableRows(input: $input) { success error errorField imported failed errors { line error field } } }';
    const p = await mutate('importDataTableRows', IMPORT, { input: { tableId: t4, csv } });
    expect(p).toMatchObject({ success: true, imported: 3, failed: 2 });
    expect(p.errors).toEqual([
      { line: 3, error: 'data.dish is required', field: 'data.dish' },
      { line: 4, error: 'data.price must be a number', field: 'data.price' },
    ]);
    expect((await rows(t4)).data.map((r) => r.data)).toEqual([
      { dish: 'Soup', price: 4 },
      { dish: 'Multi\nline', price: 7 },
      { dish: 'Pie', price: 2.5 },
    ]);
    const badHeader = await mutate('importDataTableRows', IMPORT, { input: { tableId: t4, csv: 'dish,colour\nx,y\n' } });
    expect(badHeader).toMatchObject({ success: false, errorField: 'header' });
    expect(badHeader.error).toContain('colour');
    // A malformed line parsed before the import reads the table is a clear refusal, not a crash.
    const malformed = await mutate('importDataTableRows', IMPORT, { input: { tableId: t4, csv: 'dish,price\nok,1\n=HYPERLINK("x"),2\n' } });
    expect(malformed).toMatchObject({ success: false, errorField: 'csv' });
    expect(malformed.error).toMatch(/malformed/);
  });

  test('reorder moves only the given rows', async () => {
    const t5 = await newTable([{ name: 'N', key: 'n', type: 'TEXT' }]);
    const b = (await mutate('batchCreateDataTableRows', BATCH, { input: { tableId: t5, rows: ['a', 'b', 'c', 'd', 'e'].map((n) => ({ data: { n } })) } }))
      .results as Array<{ rowId: string }>;
    const [a, , c, , e] = b.map((r) => r.rowId);
    const REORDER = 'mutation($input: ReorderDataTableRowsInput!) { reorderDataTableRows(input: $input) { success error moved } }';
    expect(await mutate('reorderDataTableRows', REORDER, { input: { tableId: t5, rowIds: [e, c] } })).toMatchObject({ success: true, moved: 2 });
    expect((await rows(t5)).data.map((r) => r.data.n)).toEqual(['e', 'c', 'a', 'b', 'd']);
    expect(await mutate('reorderDataTableRows', REORDER, { input: { tableId: t5, rowIds: [a], afterRowId: b[3]!.rowId } })).toMatchObject({
      success: true,
      moved: 1,
    });
    expect((await rows(t5)).data.map((r) => r.data.n)).toEqual(['e', 'c', 'b', 'd', 'a']);
    // Many moves into the same gap still keep a total order.
    for (let i = 0; i < 60; i++) await mutate('reorderDataTableRows', REORDER, { input: { tableId: t5, rowIds: [i % 2 ? c : e], afterRowId: a } });
    // The last move put c right after a, and e (moved just before) after c.
    expect((await rows(t5)).data.map((r) => r.data.n)).toEqual(['b', 'd', 'a', 'c', 'e']);
  });
});

describe('batches', () => {
  test('at most 100 rows per call; one bad row does not fail the others', async () => {
    const t = await newTable();
    const over = await mutate('batchCreateDataTableRows', BATCH, {
      input: { tableId: t, rows: Array.from({ length: 101 }, (_, i) => ({ data: { dish: `d${i}` } })) },
    });
    expect(over).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT', errorField: 'rows' });
    expect(over.error).toContain('at most 100');
    expect((await rows(t)).totalCount).toBe(0);
    const mixed = await mutate('batchCreateDataTableRows', BATCH, {
      input: { tableId: t, rows: [{ data: { dish: 'ok' } }, { data: { price: 1 } }, { data: { dish: 'ok2', price: 'x' } }, { data: { dish: 'ok3' } }] },
    });
    expect(mixed).toMatchObject({ success: true, successCount: 2, failureCount: 2 });
    const results = mixed.results as Array<{ success: boolean; error: string | null; rowId: string | null }>;
    expect(results.map((r) => r.success)).toEqual([true, false, false, true]);
    expect(results[1]!.error).toContain('data.dish is required');
    const ids = [results[0]!.rowId, 'missing', results[3]!.rowId];
    const del = await mutate('batchDeleteDataTableRows', BATCH_DELETE, { input: { tableId: t, rowIds: ids } });
    expect(del).toMatchObject({ success: true, successCount: 2, failureCount: 1 });
    const tooMany = await mutate('batchDeleteDataTableRows', BATCH_DELETE, { input: { tableId: t, rowIds: Array.from({ length: 101 }, (_, i) => `r${i}`) } });
    expect(tooMany).toMatchObject({ success: false, errorField: 'rowIds' });
    expect((await rows(t)).totalCount).toBe(0);
  });
});

describe('paging', () => {
  test('10,000 rows paged with continuation tokens while rows are inserted and deleted: none lost or repeated', async () => {
    const t = await newTable([
      { name: 'N', key: 'n', type: 'NUMBER', sortable: true },
      { name: 'G', key: 'g', type: 'TEXT' },
    ]);
    for (let b = 0; b < 100; b++) {
      await mutate('batchCreateDataTableRows', BATCH, {
        input: { tableId: t, rows: Array.from({ length: 100 }, (_, i) => ({ data: { n: (b * 100 + i) * 2, g: i % 2 ? 'odd' : 'even' } })) },
      });
    }
    for (const [sort, dir] of [
      ['n', 'asc'],
      ['n', 'desc'],
      [null, 'asc'],
    ] as const) {
      const original = new Set<number>();
      const seen: number[] = [];
      const inserted = new Set<number>();
      const deleted = new Set<number>();
      let token: string | null = null;
      let page = 0;
      do {
        const p: RowPage = await rows(t, { s: sort, d: dir, n: 100, c: token });
        for (const r of p.data) seen.push(r.data.n as number);
        token = p.continuationToken;
        page++;
        if (page % 10 === 0 && token) {
          // Insert a row (odd n, new) and delete one not yet seen.
          const n = page * 2 + 1 + (sort === 'n' && dir === 'desc' ? 100000 : 0);
          await newRow(t, { n, g: 'new' });
          inserted.add(n);
          const ahead = await rows(t, { s: sort, d: dir, n: 1, c: token });
          const victim = ahead.data[0];
          if (victim) {
            await mutate('deleteDataTableRow', DELETE_ROW, { t, r: victim.id });
            deleted.add(victim.data.n as number);
          }
        }
      } while (token && page < 500);
      for (let i = 0; i < 10000; i++) original.add(i * 2);
      expect(new Set(seen).size).toBe(seen.length);
      for (const n of original) if (!deleted.has(n)) expect(seen.includes(n) || n < 0).toBe(true);
      for (const n of deleted) expect(seen).not.toContain(n);
      // Restore the table for the next order.
      for (const n of inserted) {
        const found = await rows(t, { f: JSON.stringify({ n }), n: 1 });
        if (found.data[0]) await mutate('deleteDataTableRow', DELETE_ROW, { t, r: found.data[0].id });
      }
      for (const n of deleted) await newRow(t, { n, g: 'back' });
    }
  }, 240_000);
});

describe('history', () => {
  test('property: after random edits, rolling back to version k restores snapshot k', async () => {
    const t = await newTable([
      { name: 'A', key: 'a', type: 'TEXT' },
      { name: 'N', key: 'n', type: 'NUMBER', sortable: true },
      { name: 'B', key: 'b', type: 'BOOLEAN' },
    ]);
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('update' as const),
        data: fc.record(
          { a: fc.option(fc.string({ maxLength: 8 })), n: fc.option(fc.integer({ min: -1000, max: 1000 })), b: fc.option(fc.boolean()) },
          { requiredKeys: [] },
        ),
      }),
      fc.record({ kind: fc.constant('delete' as const) }),
      fc.record({ kind: fc.constant('rollback' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), fc.nat(), async (ops, pick) => {
        const row = await newRow(t, { a: 'start', n: 1 });
        const id = row.id as string;
        const snapshots = new Map<number, Obj>([[1, row.data as Obj]]);
        let version = 1;
        let alive = true;
        for (const o of ops) {
          if (o.kind === 'update' && alive) {
            const data = Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, v === '' ? null : v]));
            const p = await mutate('updateDataTableRow', UPDATE_ROW, { input: { tableId: t, rowId: id, data, version } });
            expect(p.success).toBe(true);
            version = (p.row as Obj).version as number;
            snapshots.set(version, (p.row as Obj).data as Obj);
          } else if (o.kind === 'delete' && alive) {
            const p = await mutate('deleteDataTableRow', DELETE_ROW, { t, r: id, v: version });
            expect(p.success).toBe(true);
            version = p.version as number;
            alive = false;
          } else if (o.kind === 'rollback') {
            const targets = [...snapshots.keys()];
            const k = targets[o.pick % targets.length] as number;
            const p = await mutate('rollbackDataTableRow', ROLLBACK, { input: { tableId: t, rowId: id, version: k } });
            expect(p.success).toBe(true);
            expect(p.newVersion).toBe(version + 1);
            version = p.newVersion as number;
            snapshots.set(version, (p.restoredRow as Obj).data as Obj);
            alive = true;
          }
        }
        const targets = [...snapshots.keys()];
        const k = targets[pick % targets.length] as number;
        const p = await mutate('rollbackDataTableRow', ROLLBACK, { input: { tableId: t, rowId: id, version: k, expectedVersion: alive ? version : null } });
        expect(p.success).toBe(true);
        expect((p.restoredRow as Obj).data).toEqual(snapshots.get(k));
        expect(p.newVersion).toBe(version + 1);
        const v = await ok('query($t: String!, $r: String!, $k: Int!) { dataTableRowVersion(tableId: $t, rowId: $r, version: $k) { version data } }', {
          t,
          r: id,
          k,
        });
        expect((v.dataTableRowVersion as Obj).data).toEqual(snapshots.get(k));
        const list = (await ok('query($t: String!, $r: String!) { dataTableRowVersions(tableId: $t, rowId: $r) { version } }', { t, r: id }))
          .dataTableRowVersions as Obj[];
        expect(list.map((x) => x.version)).toEqual(Array.from({ length: version + 1 }, (_, i) => version + 1 - i));
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  test('a stale rollback is refused', async () => {
    const t = await newTable([{ name: 'A', key: 'a', type: 'TEXT' }]);
    const r = await newRow(t, { a: 'x' });
    await mutate('updateDataTableRow', UPDATE_ROW, { input: { tableId: t, rowId: r.id, data: { a: 'y' } } });
    const p = await mutate('rollbackDataTableRow', ROLLBACK, { input: { tableId: t, rowId: r.id, version: 1, expectedVersion: 1 } });
    expect(p).toMatchObject({ success: false, errorCode: 'VERSION_CONFLICT' });
    const missing = await mutate('rollbackDataTableRow', ROLLBACK, { input: { tableId: t, rowId: r.id, version: 9 } });
    expect(missing).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
  });

  test('the CREATE version: the same before and after the first change, through update, migration, reorder and delete', async () => {
    const VERSIONS = 'query($t: String!, $r: String!) { dataTableRowVersions(tableId: $t, rowId: $r) { version change data sortOrder updatedAt userId } }';
    const ONE = 'query($t: String!, $r: String!, $v: Int!) { dataTableRowVersion(tableId: $t, rowId: $r, version: $v) { version change data updatedAt } }';
    const versions = async (t: string, r: unknown) => (await ok(VERSIONS, { t, r })).dataTableRowVersions as Obj[];
    const t = await newTable([{ name: 'A', key: 'a', type: 'TEXT' }]);
    const r = await newRow(t, { a: 'x' });
    const before = await versions(t, r.id);
    expect(before).toEqual([{ version: 1, change: 'CREATE', data: { a: 'x' }, sortOrder: r.sortOrder, updatedAt: r.updatedAt, userId: 'u1' }]);
    expect((await ok(ONE, { t, r: r.id, v: 1 })).dataTableRowVersion).toMatchObject({ version: 1, change: 'CREATE', data: { a: 'x' } });
    await new Promise((done) => setTimeout(done, 1100)); // a later second: the CREATE version keeps its own time
    await mutate('updateDataTableRow', UPDATE_ROW, { input: { tableId: t, rowId: r.id, data: { a: 'y' } } });
    const after = await versions(t, r.id);
    expect(after.map((v) => [v.version, v.change, v.data])).toEqual([
      [2, 'UPDATE', { a: 'y' }],
      [1, 'CREATE', { a: 'x' }],
    ]);
    expect(after[1]).toEqual(before[0]);

    // A migration rewrites an unchanged row without a version: its CREATE version keeps the data it was created with.
    const m = await newTable([{ name: 'N', key: 'n', type: 'TEXT' }]);
    const mr = await newRow(m, { n: '7' });
    const def = (await ok('query($t: String!) { dataTable(tableId: $t) { columns { id } } }', { t: m })).dataTable as { columns: { id: string }[] };
    const UPDATE = 'mutation($input: UpdateDataTableInput!) { updateDataTable(input: $input) { success error } }';
    expect(
      await mutate('updateDataTable', UPDATE, {
        input: { tableId: m, onInvalidRows: 'MIGRATE', columns: [{ id: def.columns[0]!.id, name: 'N', key: 'n', type: 'NUMBER' }] },
      }),
    ).toMatchObject({ success: true });
    expect((await versions(m, mr.id)).map((v) => [v.version, v.change, v.data])).toEqual([[1, 'CREATE', { n: '7' }]]);

    // Reorder and delete of never-changed rows, then rollback of the deleted one to its creation.
    const a = await newRow(t, { a: 'a' });
    const b = await newRow(t, { a: 'b' });
    await mutate('reorderDataTableRows', 'mutation($input: ReorderDataTableRowsInput!) { reorderDataTableRows(input: $input) { success moved } }', {
      input: { tableId: t, rowIds: [b.id], afterRowId: null },
    });
    expect((await versions(t, b.id)).map((v) => [v.version, v.change])).toEqual([
      [2, 'REORDER'],
      [1, 'CREATE'],
    ]);
    expect(await mutate('deleteDataTableRow', DELETE_ROW, { t, r: a.id })).toMatchObject({ success: true, version: 2 });
    expect((await versions(t, a.id)).map((v) => [v.version, v.change, v.data])).toEqual([
      [2, 'DELETE', { a: 'a' }],
      [1, 'CREATE', { a: 'a' }],
    ]);
    expect(await mutate('rollbackDataTableRow', ROLLBACK, { input: { tableId: t, rowId: a.id, version: 1 } })).toMatchObject({
      success: true,
      newVersion: 3,
      restoredRow: { data: { a: 'a' } },
    });
  });
});

describe('isolation and policies', () => {
  test("another account cannot read or write a table's rows", async () => {
    const t = await newTable();
    const r = await newRow(t, { dish: 'Mine' });
    const b = principal('acc-b');
    const reads = [
      [ROWS, { t }],
      ['query($t: String!, $r: String!) { dataTableRow(tableId: $t, rowId: $r) { id } }', { t, r: r.id }],
      ['query($t: String!, $r: String!) { dataTableRowVersions(tableId: $t, rowId: $r) { version } }', { t, r: r.id }],
      ['query($t: String!) { exportDataTableRows(tableId: $t) }', { t }],
    ] as const;
    for (const [q, v] of reads) expect((await run(q, v, b)).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // Row ids of A's table are not found under B's own table either.
    const tb = await newTable(COLUMNS, b);
    expect(
      (await run('query($t: String!, $r: String!) { dataTableRow(tableId: $t, rowId: $r) { id } }', { t: tb, r: r.id }, b)).errors?.[0]?.extensions?.code,
    ).toBe('NOT_FOUND');
    expect(await mutate('updateDataTableRow', UPDATE_ROW, { input: { tableId: t, rowId: r.id, data: { dish: 'x' } } }, b)).toMatchObject({
      success: false,
      errorCode: 'NOT_FOUND',
    });
    expect(await mutate('updateDataTableRow', UPDATE_ROW, { input: { tableId: tb, rowId: r.id, data: { dish: 'x' } } }, b)).toMatchObject({
      success: false,
      errorCode: 'NOT_FOUND',
    });
    expect(await mutate('deleteDataTableRow', DELETE_ROW, { t, r: r.id }, b)).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect(await mutate('rollbackDataTableRow', ROLLBACK, { input: { tableId: tb, rowId: r.id, version: 1 } }, b)).toMatchObject({
      success: false,
      errorCode: 'NOT_FOUND',
    });
    expect(await mutate('batchDeleteDataTableRows', BATCH_DELETE, { input: { tableId: tb, rowIds: [r.id] } }, b)).toMatchObject({ successCount: 0 });
    expect(await mutate('deleteDataTable', 'mutation($t: String!) { deleteDataTable(tableId: $t) { success errorCode } }', { t }, b)).toMatchObject({
      success: false,
      errorCode: 'NOT_FOUND',
    });
    expect(((await ok('query($t: String!, $r: String!) { dataTableRow(tableId: $t, rowId: $r) { data } }', { t, r: r.id })).dataTableRow as Obj).data).toEqual(
      expect.objectContaining({ dish: 'Mine' }),
    );
  });

  test('view, edit and delete policies are enforced', async () => {
    const t = await newTable();
    const viewOnly = principal('acc-a', ['DataTables_View']);
    expect((await run(ROWS, { t }, viewOnly)).errors).toBeUndefined();
    expect((await run(CREATE_ROW, { input: { tableId: t, data: { dish: 'x' } } }, viewOnly)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const editOnly = principal('acc-a', ['DataTables_View', 'DataTables_Edit']);
    const r = await newRow(t, { dish: 'x' }, editOnly);
    expect((await run(DELETE_ROW, { t, r: r.id }, editOnly)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await run(ROWS, { t }, principal('acc-a', ['DataTables_Edit']))).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('caching', () => {
  test('cached row pages are invalidated by every write', async () => {
    const t = await newTable([{ name: 'A', key: 'a', type: 'TEXT' }], principal('acc-a'), { cacheTtlSeconds: 300 });
    await newRow(t, { a: '1' });
    expect((await rows(t)).data).toHaveLength(1);
    const r = await newRow(t, { a: '2' });
    expect((await rows(t)).data).toHaveLength(2);
    await mutate('updateDataTableRow', UPDATE_ROW, { input: { tableId: t, rowId: r.id, data: { a: '3' } } });
    expect((await rows(t)).data.map((x) => x.data.a)).toEqual(['1', '3']);
  });
});

describe('the table row cap (DATATABLE_MAX_ROWS) holds for every write that adds rows, not only imports', () => {
  const capped = () => createDataTablesSubgraph({ documents: store, tokens: testTokens, cache, historyLimit: 1000, maxTableRows: 3 });
  let plain: typeof sg;
  beforeAll(() => {
    plain = sg;
    sg = capped();
  });
  afterAll(() => {
    sg = plain;
  });

  test("a batch that does not fit is refused whole (nothing written); single rows and a deleted row's rollback stop at the cap", async () => {
    const t = await newTable([{ name: 'A', key: 'a', type: 'TEXT' }]);
    const two = await mutate('batchCreateDataTableRows', BATCH, { input: { tableId: t, rows: [{ data: { a: '1' } }, { data: { a: '2' } }] } });
    expect(two.successCount).toBe(2);
    const over = await mutate('batchCreateDataTableRows', BATCH, { input: { tableId: t, rows: [{ data: { a: '3' } }, { data: { a: '4' } }] } });
    expect(over).toMatchObject({ success: false, errorCode: 'PAYLOAD_TOO_LARGE', errorField: 'rows' });
    expect(over.error).toMatch(/at most 3 rows \(DATATABLE_MAX_ROWS\).*nothing was written/);
    expect((await rows(t)).totalCount).toBe(2);
    const third = await newRow(t, { a: '3' });
    const fourth = await mutate('createDataTableRow', CREATE_ROW, { input: { tableId: t, data: { a: '4' } } });
    expect(fourth).toMatchObject({ success: false, errorCode: 'PAYLOAD_TOO_LARGE' });
    // Deleting one makes room for one; rolling a deleted row back adds it again.
    await mutate('deleteDataTableRow', DELETE_ROW, { t, r: third.id });
    await newRow(t, { a: '5' });
    const back = await mutate('rollbackDataTableRow', ROLLBACK, { input: { tableId: t, rowId: third.id, version: 1 } });
    expect(back).toMatchObject({ success: false, errorCode: 'PAYLOAD_TOO_LARGE' });
    expect((await rows(t)).totalCount).toBe(3);
  });
});
