import type { DocumentStore } from '@pylon/kit';
import { policyAnswers, subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchLmdbStore } from '@pylon/adapters/lmdb';
import { createDataTablesSubgraph } from '../../../app.js';
import type { DataTableRecord } from '../../../domain/data-table.js';

const principal = testPrincipal;

let store: DocumentStore;
let sg: ReturnType<typeof createDataTablesSubgraph>;

const run = subgraphRunner(() => sg, principal('acc-a'));

interface Page {
  data: { id: string; name: string }[];
  continuationToken: string | null;
}
const PAGE = 'query($size: Int, $token: String) { dataTables(pageSize: $size, continuationToken: $token) { data { id name } continuationToken } }';

async function page(size: number | null, token: string | null = null, who = principal('acc-a')): Promise<Page> {
  const r = await run(PAGE, { size, token }, who);
  expect(r.errors).toBeUndefined();
  return (r.data as { dataTables: Page }).dataTables;
}

const table = (name: string, over: Partial<DataTableRecord> = {}): DataTableRecord => ({
  name,
  description: null,
  columns: [],
  rowCount: 0,
  cacheTtlSeconds: null,
  ...over,
});

beforeAll(async () => {
  store = await createScratchLmdbStore('pylon-datatables-');
  sg = createDataTablesSubgraph({ documents: store, tokens: testTokens });
  const tables = { insert: (tenant: string, t: DataTableRecord & { id: string }) => sg.repo.insertTable(tenant, t) };
  await tables.insert('acc-a', {
    id: 'menu',
    ...table('Menu', {
      description: 'Today’s dishes',
      rowCount: 12,
      cacheTtlSeconds: 300,
      columns: [
        { id: 'c1', name: 'Dish', key: 'dish', type: 'TEXT', required: true, sortable: true, options: null, default: null },
        { id: 'c2', name: 'Price', key: 'price', type: 'NUMBER', required: false, sortable: true, options: null, default: '0' },
        { id: 'c3', name: 'Diet', key: 'diet', type: 'TEXT', required: false, sortable: false, options: ['vegan', 'vegetarian'], default: null },
      ],
    }),
  });
  // Two tables share a name, so the page boundary must fall between equal names correctly.
  for (const [id, name] of [
    ['t-a', 'Alpha'],
    ['t-b2', 'Bravo'],
    ['t-b1', 'Bravo'],
    ['t-c', 'Charlie'],
  ] as const)
    await tables.insert('acc-a', { id, ...table(name) });
  for (let i = 0; i < 52; i++) await tables.insert('acc-many', { id: `t${i}`, ...table(`Table ${String(i).padStart(2, '0')}`) });
  await tables.insert('acc-b', { id: 'secret', ...table('Other account') });
});

afterAll(() => store.close());

test('one table with its columns', async () => {
  const r = await run(
    '{ dataTable(tableId: "menu") { id name description columnCount rowCount updatedAt cacheTtlSeconds columns { id name key type required sortable options default } } }',
  );
  expect(r.errors).toBeUndefined();
  const t = (r.data as { dataTable: Record<string, unknown> }).dataTable;
  expect(t).toMatchObject({ id: 'menu', name: 'Menu', description: 'Today’s dishes', columnCount: 3, rowCount: 12, cacheTtlSeconds: 300 });
  expect(t.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  expect(t.columns).toEqual([
    { id: 'c1', name: 'Dish', key: 'dish', type: 'TEXT', required: true, sortable: true, options: null, default: null },
    { id: 'c2', name: 'Price', key: 'price', type: 'NUMBER', required: false, sortable: true, options: null, default: '0' },
    { id: 'c3', name: 'Diet', key: 'diet', type: 'TEXT', required: false, sortable: false, options: ['vegan', 'vegetarian'], default: null },
  ]);
});

test('an unknown table and another account’s table are NOT_FOUND alike', async () => {
  for (const id of ['nope', 'secret']) {
    const r = await run('query($id: String!) { dataTable(tableId: $id) { id } }', { id });
    expect(r.data).toEqual({ dataTable: null });
    expect(r.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(r.errors?.[0]?.message).toBe(`data table '${id}' was not found`);
  }
});

test('pages follow (name, id) order and the continuation token until the last page', async () => {
  const seen: string[] = [];
  let token: string | null = null;
  let pages = 0;
  do {
    const p: Page = await page(2, token);
    seen.push(...p.data.map((t) => t.id));
    token = p.continuationToken;
    pages++;
    if (token) expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
  } while (token && pages < 10);
  expect(pages).toBe(3);
  expect(seen).toEqual(['t-a', 't-b1', 't-b2', 't-c', 'menu']);
});

test('a table added behind the cursor does not shift later pages', async () => {
  const first = await page(2);
  await sg.repo.insertTable('acc-a', { id: 'aaa', ...table('Aardvark') });
  try {
    const second = await page(2, first.continuationToken);
    expect(second.data.map((t) => t.id)).toEqual(['t-b2', 't-c']);
  } finally {
    await sg.repo.deleteTable('acc-a', 'aaa');
  }
});

test('pageSize defaults to 50 and may not exceed 100', async () => {
  const first = await page(null, null, principal('acc-many'));
  expect(first.data).toHaveLength(50);
  expect(first.continuationToken).not.toBeNull();
  const rest = await page(100, first.continuationToken, principal('acc-many'));
  expect(rest.data.map((t) => t.name)).toEqual(['Table 50', 'Table 51']);
  expect(rest.continuationToken).toBeNull();
  for (const size of [101, 0, -1]) {
    const r = await run(PAGE, { size });
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'pageSize' });
    expect(r.errors?.[0]?.message).toContain('pageSize');
  }
});

test('a malformed continuation token is refused', async () => {
  const notJson = Buffer.from('not json').toString('base64url');
  const wrongShape = Buffer.from(JSON.stringify({ name: 'x' })).toString('base64url');
  for (const token of ['!!!', notJson, wrongShape, 'A'.repeat(5000)]) {
    const r = await run(PAGE, { size: 2, token });
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'continuationToken' });
  }
});

test('another account sees only its own tables', async () => {
  expect((await page(null, null, principal('acc-b'))).data.map((t) => t.id)).toEqual(['secret']);
  expect((await page(null, null, principal('acc-nobody'))).data).toEqual([]);
});

test('DataTables_View is required', async () => {
  expect(await policyAnswers(run, 'DataTables_View', ['{ dataTables { continuationToken } }', '{ dataTable(tableId: "menu") { id } }'])).toEqual({
    without: ['FORBIDDEN', 'FORBIDDEN'],
    alone: [true, true],
  });
});

describe('dataTables where / order', () => {
  const LIST =
    'query($where: DataTableFilterInput, $order: [DataTableSortInput!], $size: Int, $token: String) { dataTables(where: $where, order: $order, pageSize: $size, continuationToken: $token) { data { id rowCount } continuationToken } }';
  const list = async (vars: Record<string, unknown>, who = principal('acc-a')) => {
    const r = await run(LIST, vars, who);
    expect(r.errors).toBeUndefined();
    return (r.data as { dataTables: { data: { id: string; rowCount: number }[]; continuationToken: string | null } }).dataTables;
  };
  /** Every page of a query, following its tokens. */
  const all = async (vars: Record<string, unknown>, who = principal('acc-a')) => {
    const ids: string[] = [];
    let token: string | null = null;
    for (let i = 0; i < 40; i++) {
      const p = await list({ ...vars, token }, who);
      ids.push(...p.data.map((t) => t.id));
      token = p.continuationToken;
      if (!token) break;
    }
    return ids;
  };

  beforeAll(async () => {
    for (const [id, rows] of [
      ['t-a', 7],
      ['t-b1', 3],
      ['t-b2', 3],
      ['t-c', 30],
    ] as const)
      await sg.repo.touchTable('acc-a', id, rows);
  });

  test('where keeps the matching tables; several fields and or combine', async () => {
    expect(await all({ where: { name: { startsWith: 'Br' } } })).toEqual(['t-b1', 't-b2']);
    expect(await all({ where: { rowCount: { gte: 7 }, name: { neq: 'Menu' } } })).toEqual(['t-a', 't-c']);
    expect(await all({ where: { or: [{ id: { eq: 'menu' } }, { description: { eq: null }, rowCount: { lt: 5 } }] } })).toEqual(['t-b1', 't-b2', 'menu']);
    expect(await all({ where: { cacheTtlSeconds: { eq: 300 } } })).toEqual(['menu']);
    expect(await all({ where: { updatedAt: { gt: '2000-01-01T00:00:00Z' }, description: { contains: 'dishes' } } })).toEqual(['menu']);
  });

  test('order sorts, ties fall back to name then id, and pages of any size join up to the whole order', async () => {
    const expected = ['t-c', 'menu', 't-a', 't-b1', 't-b2'];
    expect((await list({ order: [{ rowCount: 'DESC' }] })).data.map((t) => t.id)).toEqual(expected);
    for (const size of [1, 2, 3]) expect(await all({ order: [{ rowCount: 'DESC' }], size })).toEqual(expected);
    // A nullable field: null sorts first ascending, and the keyset position carries the null.
    expect(await all({ order: [{ description: 'ASC' }, { id: 'DESC' }], size: 1 })).toEqual(['t-c', 't-b2', 't-b1', 't-a', 'menu']);
    expect(await all({ where: { rowCount: { lt: 10 } }, order: [{ rowCount: 'ASC' }], size: 1 })).toEqual(['t-b1', 't-b2', 't-a']);
  });

  test('a token is refused under another order', async () => {
    const first = await list({ order: [{ rowCount: 'DESC' }], size: 2 });
    expect(first.continuationToken).not.toBeNull();
    for (const order of [null, [{ rowCount: 'ASC' }], [{ name: 'ASC' }]]) {
      const r = await run(LIST, { order, size: 2, token: first.continuationToken });
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'continuationToken' });
      expect(r.errors?.[0]?.message).toContain('another sort order');
    }
  });

  test('a long sort value makes a token that names the table; it pages on, and is refused once that table is gone', async () => {
    const long = (c: string) => c.repeat(2000);
    for (const [id, d] of [
      ['long-1', 'é'],
      ['long-2', 'ê'],
      ['long-3', 'ë'],
    ] as const)
      await sg.repo.insertTable('acc-long', { id, ...table(`Long ${id}`, { description: long(d) }) });
    const order = [{ description: 'DESC' }];
    const first = await list({ order, size: 1 }, principal('acc-long'));
    expect(first.data.map((t) => t.id)).toEqual(['long-3']);
    // The values would make a token of ~5,400 characters; it names the table instead.
    expect(first.continuationToken!.length).toBeLessThanOrEqual(1024);
    expect(await all({ order, size: 1 }, principal('acc-long'))).toEqual(['long-3', 'long-2', 'long-1']);
    await sg.repo.deleteTable('acc-long', 'long-3');
    const r = await run(LIST, { order, size: 1, token: first.continuationToken }, principal('acc-long'));
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'continuationToken' });
    expect(r.errors?.[0]?.message).toContain('deleted since; start again');
    // Another account cannot follow a token that names this account's table.
    const second = await list({ order, size: 1 }, principal('acc-long'));
    const foreign = await run(LIST, { order, size: 1, token: second.continuationToken }, principal('acc-a'));
    expect(foreign.errors?.[0]?.message).toContain('deleted since; start again');
  });

  test('bad where and order name the field', async () => {
    for (const [vars, field] of [
      [{ where: { updatedAt: { gt: 'yesterday' } } }, 'where.updatedAt'],
      [{ where: { name: { in: Array.from({ length: 1001 }, (_, i) => `n${i}`) } } }, 'where.name'],
    ] as const) {
      const r = await run(LIST, vars);
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    // Columns are neither filterable nor sortable: the schema has no such field.
    const r = await run(LIST, { order: [{ columns: 'ASC' }] });
    expect(r.errors?.[0]?.message).toContain('"columns" is not defined by type "DataTableSortInput"');
  });

  test('where never reaches another account’s tables', async () => {
    expect(await all({ where: { id: { in: ['secret', 'menu'] } } })).toEqual(['menu']);
    expect(await all({ where: { name: { eq: 'Other account' } } })).toEqual([]);
    expect(await all({ where: { id: { eq: 'menu' } } }, principal('acc-b'))).toEqual([]);
  });
});
