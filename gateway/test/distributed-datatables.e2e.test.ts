/**
 * Distributed mode: the datatables process serves, beside /graphql, the plain-HTTP router that
 * all-in-one mounts (row reads with ETag, CSV import, CSV export), for requests carrying the
 * signed internal token the edge adds; without one it answers 401.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INTERNAL_TOKEN_HEADER, InternalTokens } from '@pylon/kit';
import { testPrincipal } from '@pylon/kit/testing';
import { freePort, Processes } from './processes.js';

const secret = randomBytes(32).toString('hex');
let procs: Processes;
let dataDir: string;
let url: string;
let headers: Record<string, string>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pylon-dist-dt-'));
  procs = new Processes({ secret, dataDir, logLevel: 'warn' });
  url = await procs.start('services/datatables/src/main.ts', {}, await freePort());
  headers = { [INTERNAL_TOKEN_HEADER]: await new InternalTokens(secret).sign(testPrincipal('dist-dt')) };
}, 60_000);

afterAll(async () => {
  await procs?.stopAll();
  await rm(dataDir, { recursive: true, force: true });
});

test('row reads, CSV import and export over the datatables process', async () => {
  const gql = async (query: string, variables: Record<string, unknown>) => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return ((await res.json()) as { data: Record<string, any> }).data;
  };
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
