/**
 * Issue 34, L3 (the third probe): with DATATABLE_MAX_ROWS=1000, batches kept writing to 1,303 rows.
 * Its own file: the all-in-one's embedded analytics store opens once per process, and this row
 * needs a server started with its own setting (the other rows: probe-3.e2e.test.ts).
 */
import { startHarness, type Harness } from '../../gateway/test/harness.js';

describe('L3: DATATABLE_MAX_ROWS stops batches, not only imports', () => {
  let small: Harness;
  beforeAll(async () => {
    small = await startHarness({ NODE_ENV: 'production', DATATABLE_MAX_ROWS: '1000' });
  }, 60_000);
  afterAll(() => small?.stop());

  test('POST /datatables/{id}/rows/batch past 1,000 rows is a 413 and writes nothing', async () => {
    const made = await small.gql('mutation { createDataTable(input: { name: "Capped", columns: [{ name: "N", key: "n", type: NUMBER }] }) { table { id } } }');
    const t = made.body.data!.createDataTable.table.id as string;
    const batch = (from: number) =>
      fetch(`${small.baseUrl}/datatables/${t}/rows/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-apikey': small.key },
        body: JSON.stringify({ rows: Array.from({ length: 100 }, (_, i) => ({ data: { n: from + i } })) }),
      });
    for (let i = 0; i < 10; i++) expect((await batch(i * 100)).status).toBeLessThan(300);
    const over = await batch(1000);
    expect(over.status).toBe(413);
    expect(await over.text()).toMatch(/at most 1000 rows \(DATATABLE_MAX_ROWS\)/);
    const count = await small.gql(`{ dataTableRows(tableId: "${t}", pageSize: 1) { totalCount } }`);
    expect(count.body.data!.dataTableRows.totalCount).toBe(1000);
  }, 60_000);
});
