/**
 * Distributed mode, through the edge: the gateway process authenticates the API key and forwards
 * large imports and GET/DELETE /jobs/{id} to the datatables process (gateway/src/edge-forward.ts),
 * where the import runs as a job. Identity, datatables and the gateway are separate processes
 * sharing one LMDB store.
 */
import { randomBytes } from 'node:crypto';
import { freePort, gatewayEnv, Processes, seedDemoStore } from './processes.js';
import { otherAccountKey } from './other-account.js';

const secret = randomBytes(32).toString('hex');
const KEY = 'distributed-jobs-key-0123456789';
let keyB: string;
let procs: Processes;
let gatewayUrl: string;

beforeAll(async () => {
  procs = await Processes.inTempDir('dist-jobs', { secret, logLevel: 'warn' });
  await seedDemoStore(procs.dataDir, secret, KEY, async ({ identity }) => {
    keyB = await otherAccountKey(identity, 'dist-jobs-other', 'o@other.example');
  });

  const [pi, pd, pg, dead] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const [identityUrl, datatablesUrl] = await Promise.all([
    procs.start('services/identity/src/main.ts', {}, pi, 60_000),
    procs.start('services/datatables/src/main.ts', { IMPORT_JOB_THRESHOLD_BYTES: '1000' }, pd, 60_000),
  ]);
  const nowhere = `http://127.0.0.1:${dead}`;
  gatewayUrl = await procs.start('gateway/src/gateway.main.ts', gatewayEnv(nowhere, { IDENTITY_URL: identityUrl, DATATABLES_URL: datatablesUrl }), pg, 60_000);
}, 150_000);

afterAll(async () => {
  await procs?.dispose();
});

type Json = Record<string, any>;
const call = async (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const key = init.key === undefined ? KEY : init.key;
  const res = await fetch(`${gatewayUrl}${path}`, { ...init, headers: { ...(key ? { 'x-service-apikey': key } : {}), ...(init.headers as object) } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
};

test('a large import through the gateway is answered 202 and its job followed to success at /jobs/{id}', async () => {
  const created = await call('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation { createDataTable(input: { name: "Edge jobs", columns: [{ name: "N", key: "n", type: NUMBER, required: true }] }) { table { id } } }',
    }),
  });
  const tableId = created.body.data.createDataTable.table.id as string;
  const rows = 5000;
  const csv = `n\n${Array.from({ length: rows }, (_, i) => (i === 3 ? 'x' : String(i))).join('\n')}\n`;
  const form = new FormData();
  form.append('file', new Blob([csv]), 'numbers.csv');
  const accepted = await call(`/datatables/${tableId}/rows/import`, { method: 'POST', body: form });
  expect(accepted.status).toBe(202);
  const id = accepted.body.id as string;
  expect(accepted.headers.get('location')).toBe(`/jobs/${id}`);

  let job: Json = {};
  for (const deadline = Date.now() + 60_000; !['succeeded', 'failed', 'cancelled'].includes(job.state);) {
    if (Date.now() > deadline) throw new Error(`job still ${job.state}`);
    await new Promise((r) => setTimeout(r, 100));
    const r = await call(`/jobs/${id}`);
    expect(r.status).toBe(200);
    job = r.body;
  }
  expect(job).toMatchObject({
    id,
    state: 'succeeded',
    progress: { rows_done: rows, rows_total: rows, rows_failed: 1 },
    result: { imported: rows - 1, failed: 1 },
  });
  expect(job.errors).toEqual([expect.objectContaining({ line: 5, field: 'data.n' })]);

  // The rows are the caller's (GraphQL through the same gateway).
  const table = await call('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query($t: String!) { dataTable(tableId: $t) { rowCount } }', variables: { t: tableId } }),
  });
  expect(table.body.data.dataTable.rowCount).toBe(rows - 1);

  // Another account: 404 for the job and for importing into the table; no key: 401; a bad key: 401.
  expect((await call(`/jobs/${id}`, { key: keyB })).status).toBe(404);
  expect((await call(`/jobs/${id}`, { method: 'DELETE', key: keyB })).status).toBe(404);
  const formB = new FormData();
  formB.append('file', new Blob([csv]), 'numbers.csv');
  expect((await call(`/datatables/${tableId}/rows/import`, { method: 'POST', body: formB, key: keyB })).status).toBe(404);
  expect((await call(`/jobs/${id}`, { key: null })).status).toBe(401);
  expect((await call(`/jobs/${id}`, { key: 'pyl_not-a-real-key-0000000000' })).status).toBe(401);
  // DELETE of a finished job answers it as it is.
  const del = await call(`/jobs/${id}`, { method: 'DELETE' });
  expect(del.status).toBe(202);
  expect(del.body.state).toBe('succeeded');

  // An export job through the edge: 202, followed, then the file through the signed link without a key.
  const exported = await call(`/datatables/${tableId}/rows/export`, { headers: { prefer: 'respond-async' } });
  expect(exported.status).toBe(202);
  expect(exported.headers.get('preference-applied')).toBe('respond-async');
  let ex: Json = {};
  for (const deadline = Date.now() + 60_000; !['succeeded', 'failed', 'cancelled'].includes(ex.state);) {
    if (Date.now() > deadline) throw new Error(`export still ${ex.state}`);
    await new Promise((r) => setTimeout(r, 100));
    ex = (await call(`/jobs/${exported.body.id as string}`)).body;
  }
  expect(ex).toMatchObject({ state: 'succeeded', kind: 'datatables.export', result: { rows: rows - 1 } });
  const file = await fetch(`${gatewayUrl}${ex.result.download_url as string}`);
  expect(file.status).toBe(200);
  expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${tableId.replace(/[^A-Za-z0-9_-]/g, '_')}.csv"`);
  expect((await file.text()).split('\r\n').filter(Boolean).length).toBe(rows);
  expect((await fetch(`${gatewayUrl}${(ex.result.download_url as string).replace(/signature=./, 'signature=%2A')}`)).status).toBe(403);
  expect((await call(`/jobs/${exported.body.id as string}`, { key: keyB })).status).toBe(404);
}, 120_000);
