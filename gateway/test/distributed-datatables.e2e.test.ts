/**
 * Distributed mode: the datatables process serves, beside /graphql, the plain-HTTP routers that
 * all-in-one mounts (row reads with ETag, CSV import, CSV export, and GET/DELETE /jobs/{id} for
 * imports over IMPORT_JOB_THRESHOLD_BYTES, which run as jobs in that process), for requests
 * carrying the signed internal token the edge adds; without one it answers 401.
 */
import { randomBytes } from 'node:crypto';
import { INTERNAL_TOKEN_HEADER, InternalTokens } from '@pylon/kit';
import { testPrincipal } from '@pylon/kit/testing';
import { freePort, Processes } from './processes.js';

const secret = randomBytes(32).toString('hex');
let procs: Processes;
let url: string;
let headers: Record<string, string>;
let otherHeaders: Record<string, string>;

beforeAll(async () => {
  procs = await Processes.inTempDir('dist-dt', { secret, logLevel: 'warn' });
  url = await procs.start('services/datatables/src/main.ts', { IMPORT_JOB_THRESHOLD_BYTES: '1000' }, await freePort(), 60_000);
  headers = { [INTERNAL_TOKEN_HEADER]: await new InternalTokens(secret).sign(testPrincipal('dist-dt')) };
  otherHeaders = { [INTERNAL_TOKEN_HEADER]: await new InternalTokens(secret).sign(testPrincipal('dist-dt-other')) };
}, 90_000);

afterAll(async () => {
  await procs?.dispose();
});

const gql = async (query: string, variables: Record<string, unknown>, as = headers) => {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { ...as, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return ((await res.json()) as { data: Record<string, any> }).data;
};

test('row reads, CSV import and export over the datatables process', async () => {
  const created = await gql('mutation($i: CreateDataTableInput!) { createDataTable(input: $i) { table { id } } }', {
    i: { name: 'Dist', columns: [{ name: 'City', key: 'city', type: 'TEXT' }] },
  });
  const tableId = created.createDataTable.table.id as string;

  const form = new FormData();
  form.append('file', new Blob(['city\nOslo\nGent\n']), 'cities.csv');
  const imported = await fetch(`${url}/datatables/${tableId}/rows/import`, { method: 'POST', headers, body: form });
  expect(imported.status).toBe(200);
  expect(await imported.json()).toMatchObject({ imported: 2, failed: 0 });

  const rows = await fetch(`${url}/datatables/${tableId}/rows`, { headers });
  expect(rows.status).toBe(200);
  const etag = rows.headers.get('etag');
  expect(((await rows.json()) as { data: { data: { city: string } }[] }).data.map((r) => r.data.city)).toEqual(['Oslo', 'Gent']);
  expect((await fetch(`${url}/datatables/${tableId}/rows`, { headers: { ...headers, 'if-none-match': etag! } })).status).toBe(304);

  const csv = await fetch(`${url}/datatables/${tableId}/rows/export`, { headers });
  expect(csv.status).toBe(200);
  expect(await csv.text()).toContain('Oslo');

  expect((await fetch(`${url}/datatables/${tableId}/rows`)).status).toBe(401);
});

test('an import over IMPORT_JOB_THRESHOLD_BYTES is a job of the datatables process: 202, followed at /jobs/{id} to success', async () => {
  const created = await gql('mutation($i: CreateDataTableInput!) { createDataTable(input: $i) { table { id } } }', {
    i: { name: 'Dist jobs', columns: [{ name: 'N', key: 'n', type: 'NUMBER', required: true }] },
  });
  const tableId = created.createDataTable.table.id as string;
  const rows = 3000;
  const csv = `n\n${Array.from({ length: rows }, (_, i) => (i === 7 ? 'x' : String(i))).join('\n')}\n`;
  expect(csv.length).toBeGreaterThan(1000);
  const form = new FormData();
  form.append('file', new Blob([csv]), 'numbers.csv');
  const accepted = await fetch(`${url}/datatables/${tableId}/rows/import`, { method: 'POST', headers, body: form });
  expect(accepted.status).toBe(202);
  const job = (await accepted.json()) as { id: string; links: { self: string } };
  expect(accepted.headers.get('location')).toBe(`/jobs/${job.id}`);

  let state: Record<string, any> = {};
  for (const deadline = Date.now() + 60_000; !['succeeded', 'failed', 'cancelled'].includes(state.state);) {
    if (Date.now() > deadline) throw new Error(`job still ${state.state}`);
    await new Promise((r) => setTimeout(r, 100));
    const res = await fetch(`${url}${job.links.self}`, { headers });
    expect(res.status).toBe(200);
    state = (await res.json()) as Record<string, any>;
  }
  expect(state).toMatchObject({
    id: job.id,
    kind: 'datatables.import',
    state: 'succeeded',
    progress: { rows_done: rows, rows_total: rows, rows_failed: 1 },
    result: { imported: rows - 1, failed: 1 },
  });
  expect(state.errors).toHaveLength(1);
  expect(state.errors[0]).toMatchObject({ line: 9, field: 'data.n' });

  // GraphQL `job` on the same process agrees; the rows are there.
  const viaGql = await gql('query($id: ID!) { job(id: $id) { id state progress { rowsDone rowsTotal rowsFailed } } }', { id: job.id });
  expect(viaGql.job).toEqual({ id: job.id, state: 'SUCCEEDED', progress: { rowsDone: rows, rowsTotal: rows, rowsFailed: 1 } });
  const table = await gql('query($id: String!) { dataTable(tableId: $id) { rowCount } }', { id: tableId });
  expect(table.dataTable.rowCount).toBe(rows - 1);

  // A finished job is answered as it is by DELETE; another account's token gets 404, no token 401.
  const del = await fetch(`${url}/jobs/${job.id}`, { method: 'DELETE', headers });
  expect(del.status).toBe(202);
  expect(((await del.json()) as { state: string }).state).toBe('succeeded');
  expect((await fetch(`${url}/jobs/${job.id}`, { headers: otherHeaders })).status).toBe(404);
  expect((await fetch(`${url}/jobs/${job.id}`, { method: 'DELETE', headers: otherHeaders })).status).toBe(404);
  expect((await fetch(`${url}/jobs/${job.id}`)).status).toBe(401);
  expect(await gql('query($id: ID!) { job(id: $id) { id } }', { id: job.id }, otherHeaders)).toEqual({ job: null });
}, 90_000);
