/**
 * The datatables process's internal routes (services/datatables/src/features/player-rows/http/internal-http.ts) and the
 * two HTTP adapters other processes use in distributed mode, against a real datatables app served
 * over HTTP (embedded store): devices' DataTableSource (a screen's menu-board rows, signed as the
 * device) and content's DataTableDirectory (a template module's dataTableId, signed with
 * DataTables_View). Each answers from the signed account only; unknown and other accounts' tables
 * are absent; a caller that is not a device cannot read player rows; the process down is
 * UNAVAILABLE, never an empty answer.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { devicePrincipal, INTERNAL_TOKEN_HEADER, type DocumentStore } from '@pylon/kit';
import { createLmdbDocumentStore } from '@pylon/adapters/lmdb';
import { subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createDataTablesInternalHttp, createDataTablesSubgraph } from '@pylon/datatables';
import { createHttpDataTableSource } from '@pylon/devices/adapters/data-table-source.http';
import { createHttpDataTableDirectory } from '@pylon/content/adapters/data-table-directory.http';

type Json = Record<string, any>;
let dir: string;
let store: DocumentStore;
let server: Server;
let base: string;
const tables: Record<'a' | 'b', string> = { a: '', b: '' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-dt-internal-'));
  store = await createLmdbDocumentStore({ path: join(dir, 'documents') });
  const sg = createDataTablesSubgraph({ documents: store, tokens: testTokens });
  const run = subgraphRunner(() => sg, testPrincipal('acc-a'));
  for (const acc of ['a', 'b'] as const) {
    const who = testPrincipal(`acc-${acc}`);
    const t = await run(
      `mutation { createDataTable(input: { name: "Menu ${acc}", columns: [{ name: "Dish", key: "dish", type: TEXT }, { name: "Code", key: "code", type: HIDDEN }] }) { table { id } } }`,
      {},
      who,
    );
    tables[acc] = (t.data as Json).createDataTable.table.id;
    await run(
      'mutation($i: CreateDataTableRowInput!) { createDataTableRow(input: $i) { success } }',
      { i: { tableId: tables[acc], data: { dish: `Soup ${acc}`, code: 'x' } } },
      who,
    );
  }
  const app = express();
  app.use(createDataTablesInternalHttp(sg.runtime, { authenticate: (req) => testTokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null) }));
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("devices' DataTableSource over HTTP", () => {
  test("a device reads its own account's rows (visible columns, ETag = generation); another account's table is null", async () => {
    const source = createHttpDataTableSource({ datatablesUrl: base, tokens: testTokens });
    const rows = await source.rows({ accountId: 'acc-a', id: 'dev-1' }, tables.a);
    expect(rows).not.toBeNull();
    expect(rows!.etag).toMatch(/^".+-g\d+"$/);
    expect(rows!.body).toMatchObject({
      table_id: tables.a,
      name: 'Menu a',
      columns: [{ key: 'dish', name: 'Dish', type: 'TEXT' }],
      rows: [{ dish: 'Soup a' }],
    });
    expect(JSON.stringify(rows!.body)).not.toContain('code');
    expect(await source.rows({ accountId: 'acc-a', id: 'dev-1' }, tables.b)).toBeNull();
    expect(await source.rows({ accountId: 'acc-a', id: 'dev-1' }, 'no-such-table')).toBeNull();
  });

  test('only a device principal reads player rows; no token is 401', async () => {
    const user = await fetch(`${base}/internal/datatables/${tables.a}/player-rows`, {
      headers: { [INTERNAL_TOKEN_HEADER]: await testTokens.sign(testPrincipal('acc-a')) },
    });
    expect(user.status).toBe(403);
    expect(((await user.json()) as Json).error.code).toBe('FORBIDDEN');
    expect((await fetch(`${base}/internal/datatables/${tables.a}/player-rows`)).status).toBe(401);
    const device = await fetch(`${base}/internal/datatables/${tables.a}/player-rows`, {
      headers: { [INTERNAL_TOKEN_HEADER]: await testTokens.sign(devicePrincipal('acc-a', 'dev-1')) },
    });
    expect(device.status).toBe(200);
  });

  test('the datatables process unreachable: UNAVAILABLE', async () => {
    const source = createHttpDataTableSource({ datatablesUrl: 'http://127.0.0.1:9', tokens: testTokens, timeoutMs: 2000 });
    await expect(source.rows({ accountId: 'acc-a', id: 'dev-1' }, tables.a)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe("content's DataTableDirectory over HTTP", () => {
  test("answers the account's own tables among the ids; other accounts' and unknown ids are left out", async () => {
    const dirA = createHttpDataTableDirectory({ datatablesUrl: base, tokens: testTokens });
    expect(await dirA.existing('acc-a', [tables.a, tables.b, 'no-such-table'])).toEqual(new Set([tables.a]));
    expect(await dirA.existing('acc-b', [tables.a, tables.b])).toEqual(new Set([tables.b]));
    expect(await dirA.existing('acc-a', [])).toEqual(new Set());
  });

  test('a caller without DataTables_View is refused; a bad body names ids', async () => {
    const post = async (body: unknown, who = testPrincipal('acc-a', [])) =>
      fetch(`${base}/internal/datatables/existing`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_TOKEN_HEADER]: await testTokens.sign(who) },
        body: JSON.stringify(body),
      });
    expect((await post({ ids: [tables.a] })).status).toBe(403);
    const bad = await post({ ids: 'x' }, testPrincipal('acc-a'));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error.field).toBe('ids');
    expect((await post({ ids: Array.from({ length: 1001 }, (_, i) => `t${i}`) }, testPrincipal('acc-a'))).status).toBe(400);
  });

  test('the datatables process unreachable: UNAVAILABLE', async () => {
    const down = createHttpDataTableDirectory({ datatablesUrl: 'http://127.0.0.1:9', tokens: testTokens, timeoutMs: 2000 });
    await expect(down.existing('acc-a', ['t'])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
