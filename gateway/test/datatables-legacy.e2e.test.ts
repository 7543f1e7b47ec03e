/** Legacy /datatables: tables and rows in json, xml and JSONP; camelCase row query parameters; row writes with JSON or XML bodies; another account's ids are 404. */
import { parseXmlBody } from '@pylon/legacy-adapter';
import { legacyCaller, startHarness, type Harness } from './harness.js';
import { otherAccountKey } from './other-account.js';

let h: Harness;
let otherKey: string;
let tableId: string;
beforeAll(async () => {
  h = await startHarness();
  otherKey = await otherAccountKey(h, 'legacy-dt-other', 'o@legacy-dt.example');
  const created = await h.gql('mutation($input: CreateDataTableInput!) { createDataTable(input: $input) { success error table { id } } }', {
    variables: {
      input: {
        name: 'Legacy prices',
        columns: [
          { name: 'City', key: 'city', type: 'TEXT' },
          { name: 'Price', key: 'price', type: 'NUMBER', sortable: true },
        ],
      },
    },
  });
  tableId = created.body.data?.createDataTable.table.id as string;
  expect(tableId).toBeTruthy();
}, 60_000);
afterAll(() => h.stop());

const call = legacyCaller(() => h);
const json = (t: string) => JSON.parse(t) as Record<string, any>;

test('rows written with JSON and XML bodies, read back as json, xml and JSONP; tables listed and read', async () => {
  const a = await call('POST', `/datatables/${tableId}/rows`, { body: JSON.stringify({ data: { city: 'Oslo', price: 12 } }) });
  expect(a.status).toBe(201);
  const rowA = json(a.text);
  expect(rowA).toMatchObject({ data: { city: 'Oslo', price: 12 }, version: 1 });
  expect(Object.keys(rowA)).toEqual(['id', 'sort_order', 'data', 'updated_at', 'version']);
  // XML leaves arrive as strings; the service converts them by column type.
  const b = await call('POST', `/datatables/${tableId}/rows?format=xml`, {
    body: '<row><data><city>Gent &amp; Brugge</city><price>7.5</price></data></row>',
    type: 'application/xml',
  });
  expect(b.status).toBe(201);
  const rowB = parseXmlBody(b.text).value as Record<string, any>;
  expect(rowB.data).toEqual({ city: 'Gent & Brugge', price: '7.5' });
  expect(json((await call('GET', `/datatables/${tableId}/rows/${rowB.id}`)).text).data).toEqual({ city: 'Gent & Brugge', price: 7.5 });

  const jsonp = await call('GET', `/datatables/${tableId}/rows/${rowA.id}`, { query: { callback: 'show' } });
  expect(jsonp.type).toBe('text/javascript; charset=utf-8');
  expect(jsonp.text.startsWith("/**/ typeof show === 'function' && show({")).toBe(true);

  const tables = json((await call('GET', '/datatables', { query: { pageSize: '10' } })).text);
  expect(tables).toEqual(expect.arrayContaining([expect.objectContaining({ id: tableId, name: 'Legacy prices', row_count: 2, column_count: 2 })]));
  const tablesXml = await call('GET', '/datatables', { query: { format: 'xml' } });
  expect(tablesXml.text).toContain('<datatables><datatable><id>');
  const one = json((await call('GET', `/datatables/${tableId}`)).text);
  expect(one.columns.map((c: { key: string }) => c.key)).toEqual(['city', 'price']);

  // camelCase parameters: filter, sort, sortDir, pageSize, continuationToken.
  const page1 = json((await call('GET', `/datatables/${tableId}/rows`, { query: { sort: 'price', sortDir: 'desc', pageSize: '1' } })).text);
  expect(page1.rows.map((r: { data: { city: string } }) => r.data.city)).toEqual(['Oslo']);
  expect(page1.total_count).toBe(2);
  expect(page1.continuation_token).toEqual(expect.any(String));
  const page2 = json(
    (
      await call('GET', `/datatables/${tableId}/rows`, {
        query: { sort: 'price', sortDir: 'desc', pageSize: '1', continuationToken: page1.continuation_token },
      })
    ).text,
  );
  expect(page2.rows.map((r: { data: { city: string } }) => r.data.city)).toEqual(['Gent & Brugge']);
  const filtered = json((await call('GET', `/datatables/${tableId}/rows`, { query: { filter: JSON.stringify({ price: { lt: 10 } }) } })).text);
  expect(filtered).toMatchObject({ total_count: 1, continuation_token: null });
  const xmlRows = await call('GET', `/datatables/${tableId}/rows`, { query: { format: 'xml', filter: '{"city":"Oslo"}' } });
  expect(xmlRows.text).toContain('<rows><row><id>');
  expect(xmlRows.text).toContain('<city>Oslo</city><price>12</price>');

  // Update (PUT with XML, POST with JSON and a version), stale version refused, delete.
  const put = json((await call('PUT', `/datatables/${tableId}/rows/${rowA.id}`, { body: '<row><data><price>13</price></data></row>', type: 'text/xml' })).text);
  expect(put).toMatchObject({ data: { city: 'Oslo', price: 13 }, version: 2 });
  const stale = await call('POST', `/datatables/${tableId}/rows/${rowA.id}`, { body: JSON.stringify({ data: { price: 1 }, version: 1 }) });
  expect(stale.status).toBe(409);
  expect(
    json((await call('POST', `/datatables/${tableId}/rows/${rowA.id}`, { body: JSON.stringify({ data: { price: 14 }, version: 2 }) })).text),
  ).toMatchObject({ version: 3 });
  expect(json((await call('DELETE', `/datatables/${tableId}/rows/${rowA.id}`)).text)).toEqual({ id: rowA.id, deleted: true, version: 4 });
  expect((await call('GET', `/datatables/${tableId}/rows/${rowA.id}`)).status).toBe(404);
});

test('refusals name the field: bad parameters, bad cells, unknown body fields', async () => {
  const cases: [string, Record<string, string>, string][] = [
    [`/datatables/${tableId}/rows`, { pageSize: '0' }, 'pageSize'],
    [`/datatables/${tableId}/rows`, { sortDir: 'up' }, 'sortDir'],
    ['/datatables', { pageSize: 'many' }, 'pageSize'],
  ];
  for (const [path, query, field] of cases) {
    const r = await call('GET', path, { query: { ...query, format: 'xml' } });
    expect(r.status).toBe(400);
    expect(r.text).toContain('<code>BAD_USER_INPUT</code>');
    expect(r.text).toContain(field);
  }
  const badCell = await call('POST', `/datatables/${tableId}/rows`, { body: JSON.stringify({ data: { price: 'cheap' } }) });
  expect(badCell.status).toBe(400);
  expect(badCell.text).toContain('price');
  const unknown = await call('POST', `/datatables/${tableId}/rows`, { body: JSON.stringify({ data: {}, id: 'mine' }) });
  expect(unknown.status).toBe(400);
  expect(json(unknown.text).error.message).toContain('unknown field id');
});

test("another account's key: every route is 404, nothing listed", async () => {
  const row = json((await call('POST', `/datatables/${tableId}/rows`, { body: JSON.stringify({ data: { city: 'Mine' } }) })).text);
  const probes: [string, string, string?][] = [
    ['GET', `/datatables/${tableId}`],
    ['GET', `/datatables/${tableId}/rows`],
    ['POST', `/datatables/${tableId}/rows`, '{"data":{}}'],
    ['GET', `/datatables/${tableId}/rows/${row.id}`],
    ['PUT', `/datatables/${tableId}/rows/${row.id}`, '{"data":{"city":"B"}}'],
    ['POST', `/datatables/${tableId}/rows/${row.id}`, '{"data":{"city":"B"}}'],
    ['DELETE', `/datatables/${tableId}/rows/${row.id}`],
  ];
  for (const [method, path, body] of probes) {
    const r = await call(method, path, { key: otherKey, ...(body ? { body } : {}) });
    expect([method, path, r.status]).toEqual([method, path, 404]);
  }
  expect(json((await call('GET', '/datatables', { key: otherKey })).text)).toEqual([]);
  expect(json((await call('GET', `/datatables/${tableId}/rows/${row.id}`)).text).data).toEqual({ city: 'Mine', price: null });
});
