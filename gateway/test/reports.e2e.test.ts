/**
 * /report over HTTP, as `npm start` serves it: the catalog, a streamed CSV export with its digest,
 * the policy for every role the access test uses (walking rest.yaml's Report operations), bad input
 * named, and another account's device and media ids refused as unknown (404).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createAccount, createApiKey, createUser, type IdentityService } from '@pylon/identity';
import { createChdbAnalyticsStore } from '@pylon/adapters/chdb';
import type { DeviceRepository } from '@pylon/devices';
import { HANDLER_RULES } from '@pylon/kit';
import { loadRestDocument } from '@pylon/rest-facade/document';
import { insertMedia, startHarness, TEST_KEY, type Harness } from './harness.js';

const A = 'demo-account';
let h: Harness;
let keyB: string;
let viewerKey: string;
let apiOnlyKey: string;
let device: { id: string; name: string };
let mediaId: string;
let foreignDevice: string;

beforeAll(async () => {
  h = await startHarness({ SIGNAGE_DEMO: 'true' });
  const identity = h.subgraphs.identity as unknown as IdentityService;
  const devices = (h.subgraphs.devices as unknown as { repo: DeviceRepository }).repo;
  const d = (await devices.all(A))[0]!;
  device = { id: d.id, name: d.name };
  mediaId = await insertMedia(h, A, { name: 'Promo', fileName: 'promo.mp4', mimeType: 'video/mp4' });
  await createAccount(identity.repo, { id: 'tenant-r', name: 'Tenant R', timezone: 'UTC' });
  const ownerB = await createUser(identity.repo, { accountId: 'tenant-r', username: 'owner@tenant-r.example', roles: ['Owner', 'API'] });
  keyB = (await createApiKey(identity.repo, { accountId: 'tenant-r', userId: ownerB.id, name: 'b' })).value;
  const created = await fetch(`${h.baseUrl}/devices`, {
    method: 'POST',
    headers: { 'x-service-apikey': keyB, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'B screen' }),
  });
  foreignDevice = ((await created.json()) as { id: string }).id;
  const viewer = await createUser(identity.repo, { accountId: A, username: 'viewer@reports.example', roles: ['Viewer', 'API'] });
  viewerKey = (await createApiKey(identity.repo, { accountId: A, userId: viewer.id, name: 'viewer' })).value;
  const apiOnly = await createUser(identity.repo, { accountId: A, username: 'api@reports.example', roles: ['API'] });
  apiOnlyKey = (await createApiKey(identity.repo, { accountId: A, userId: apiOnly.id, name: 'api' })).value;

  // Plays written straight into the store the server reads (chDB: a second connection on its data dir).
  const store = await createChdbAnalyticsStore({ path: join(h.dataDir, 'analytics') });
  const play = (id: string, account: string, dev: string, ts: string, duration: number, file = mediaId) => ({
    id,
    account_id: account,
    device_id: dev,
    file_id: file,
    file_name: 'promo.mp4',
    timestamp: ts,
    duration,
    type: 'video',
    playlist_id: 'pl',
    schedule_id: 'sc',
  });
  await store.insert('play_logs', [
    play('e1', A, device.id, '2024-05-01T10:00:00.000Z', 12.5),
    play('e2', A, device.id, '2024-05-01T11:00:00.000Z', 7.25),
    play('e3', 'tenant-r', foreignDevice, '2024-05-01T10:00:00.000Z', 99, 'b-file'),
  ]);
  await store.close();
}, 90_000);
afterAll(() => h.stop());

const call = (path: string, key: string, body?: unknown, init: RequestInit = {}) =>
  fetch(`${h.baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...init,
    headers: { 'x-service-apikey': key, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

const POP = { report_id: 'proof_of_play', start_date: '2024-05-01', end_date: '2024-05-01' };

test('GET /report lists the reports in the reference shape; ?id narrows it', async () => {
  const res = await call('/report', TEST_KEY);
  expect(res.status).toBe(200);
  const list = (await res.json()) as { id: string; parameters: { id: string }[] }[];
  expect(list.map((r) => r.id)).toEqual(expect.arrayContaining(['proof_of_play', 'device_uptime', 'audience_summary', 'media_performance']));
  expect(((await (await call('/report?id=device_uptime', TEST_KEY)).json()) as unknown[]).length).toBe(1);
  expect((await call('/report?nope=1', TEST_KEY)).status).toBe(400);
});

test('POST /report/export streams the CSV: rows, totals, digest; the same again gives the same digest', async () => {
  const res = await call('/report/export', TEST_KEY, POP);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(res.headers.get('content-disposition')).toBe('attachment; filename="proof_of_play_2024-05-01_2024-05-01.csv"');
  const text = await res.text();
  const [table, summary] = text.split('\r\n\r\n') as [string, string];
  const rows = table.split('\r\n').slice(1);
  expect(rows).toEqual([
    `2024-05-01T10:00:00.000Z,${device.id},${device.name},${mediaId},promo.mp4,12.5,pl,,sc,,e1`,
    `2024-05-01T11:00:00.000Z,${device.id},${device.name},${mediaId},promo.mp4,7.25,pl,,sc,,e2`,
  ]);
  expect(summary).toContain('Total Duration (s),19.75\r\n');
  // The digest covers each play's fixed facts (play, device and file ids, recorded file name, start,
  // duration, playlist, schedule), not the device name (reports-trust.e2e.test.ts reads the rule from the file).
  const digest = createHash('sha256')
    .update(
      rows
        .map((r) => r.split(','))
        .map((f) => [f[10], f[1], f[3], f[4], f[0], f[5], f[6], f[8]].join(',') + '\n')
        .join(''),
    )
    .digest('hex');
  expect(summary).toContain(`SHA-256 of rows,${digest}\r\n`);
  const again = await (await call('/report/export', TEST_KEY, POP)).text();
  expect(again).toContain(`SHA-256 of rows,${digest}\r\n`);
  // The other formats: their files' magic numbers (a zip for Excel).
  for (const [format, magic] of [
    ['EXCEL', 'PK'],
    ['PDF', '%PDF-'],
  ] as const) {
    const file = await call('/report/export', TEST_KEY, { ...POP, format });
    expect([
      file.status,
      Buffer.from(await file.arrayBuffer())
        .subarray(0, magic.length)
        .toString(),
    ]).toEqual([200, magic]);
  }
});

test('every Report operation of rest.yaml: Analytics_View required (viewer yes, API-only 403, no key 401)', async () => {
  const doc = loadRestDocument().definition as { paths: Record<string, Record<string, { tags?: string[] }>> };
  const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => op.tags?.includes('Report'))
      .map(([method]) => ({ path, method: method.toUpperCase() })),
  );
  expect(ops.length).toBeGreaterThanOrEqual(2);
  // Every handler-served Report operation has its rule in kit's policy table, and nothing else is there.
  const ids = Object.values(doc.paths).flatMap((item) =>
    Object.values(item)
      .filter((op) => op.tags?.includes('Report'))
      .map((op) => (op as { operationId?: string }).operationId),
  );
  expect(ids.every((id) => id !== undefined && id in HANDLER_RULES)).toBe(true);
  expect(Object.keys(HANDLER_RULES).filter((k) => !ids.includes(k))).toEqual([]);
  expect(ops).toContainEqual({ path: '/report/adhawk', method: 'POST' });
  for (const { path, method } of ops) {
    const body = method === 'POST' ? (path === '/report/export' ? POP : { dataset_type: 'ImpressionTotals' }) : undefined;
    const viewer = await call(path, viewerKey, body);
    await viewer.arrayBuffer();
    expect([path, viewer.status]).toEqual([path, path === '/report/adhawk' ? 501 : 200]);
    const denied = await call(path, apiOnlyKey, body);
    expect([path, denied.status, ((await denied.json()) as { error: { message: string } }).error.message]).toEqual([
      path,
      403,
      'this operation requires the Analytics_View policy',
    ]);
    const anonymous = await fetch(`${h.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect([path, anonymous.status]).toEqual([path, 401]);
  }
});

test('POST /report/adhawk is declared (the docs show it) and answers 501 with the JSON error body', async () => {
  const spec = (await (await fetch(`${h.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown>; requestBody?: unknown }>>;
  };
  const op = spec.paths['/report/adhawk']?.post;
  expect(op?.operationId).toBe('adhawkReport');
  expect(Object.keys(op!.responses)).toContain('501');
  expect(Object.keys(op!.responses).filter((s) => s.startsWith('2'))).toEqual([]);
  expect(JSON.stringify(op!.requestBody)).toContain('AdHawkDatasetPostBody');
  const r = await call('/report/adhawk', TEST_KEY, { dataset_type: 'GenderTotals', interval_type: 'Day', start_date: '2024-05-01T00:00:00Z' });
  expect([r.status, r.headers.get('content-type')]).toEqual([501, expect.stringMatching(/^application\/json/)]);
  const body = (await r.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('NOT_IMPLEMENTED');
  expect(body.error.message).toMatch(/\/analytics/);
  // Not JSON: 400 naming the body, before the 501.
  const bad = await call('/report/adhawk', TEST_KEY, '{not json');
  expect([bad.status, ((await bad.json()) as { error: { field: string } }).error.field]).toEqual([400, 'body']);
});

test('bad input is a 400 naming the field, never a 500', async () => {
  const cases: [unknown, string][] = [
    [{ ...POP, report_id: 'nope' }, 'report_id'],
    [{ ...POP, format: 'HTML' }, 'format'],
    [{ ...POP, start_date: 'yesterday' }, 'start_date'],
    [{ ...POP, device_id: [''] }, 'device_id[0]'],
    [{ ...POP, extra: true }, 'extra'],
    ['{not json', 'body'],
  ];
  for (const [body, field] of cases) {
    const res = await call('/report/export', TEST_KEY, body);
    expect([field, res.status, ((await res.json()) as { error: { field?: string } }).error.field]).toEqual([field, 400, field]);
  }
  const stored = await call('/report/export?exclude_body=true', TEST_KEY, POP);
  expect([stored.status, ((await stored.json()) as { error: { field: string } }).error.field]).toEqual([400, 'exclude_body']);
  const form = await call('/report/export', TEST_KEY, 'report_id=x', { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(form.status).toBe(415);
});

test("cross-account: B's export never shows A's plays, and A's ids are unknown to B (404 naming them)", async () => {
  const mine = await (await call('/report/export', keyB, POP)).text();
  expect(mine).not.toContain(device.id);
  // B sees its own play only.
  expect(
    mine
      .split('\r\n\r\n')[0]!
      .split('\r\n')
      .slice(1)
      .map((l) => l.split(',').at(-1)),
  ).toEqual(['e3']);
  const dev = await call('/report/export', keyB, { ...POP, device_id: [device.id] });
  expect([dev.status, ((await dev.json()) as { error: { field: string } }).error.field]).toEqual([404, 'device_id[0]']);
  const media = await call('/report/export', keyB, { ...POP, media_id: [mediaId] });
  expect([media.status, ((await media.json()) as { error: { field: string } }).error.field]).toEqual([404, 'media_id[0]']);
  // And A cannot name B's device.
  const back = await call('/report/export', TEST_KEY, { ...POP, device_id: [foreignDevice] });
  expect(back.status).toBe(404);
});

test('every export is in the audit trail (controller Report, action exportReport)', async () => {
  await (await call('/report/export', TEST_KEY, POP)).text();
  const deadline = Date.now() + 15_000;
  for (;;) {
    const r = await call('/account/auditevents?controllerName=Report&actionName=exportReport', TEST_KEY);
    const list = (await r.json()) as { user_name: string; http_method: string; response_code: number }[];
    if (list.some((e) => e.response_code === 200)) {
      expect(list.every((e) => e.http_method === 'POST')).toBe(true);
      break;
    }
    if (Date.now() > deadline) throw new Error('the export never reached the audit trail');
    await new Promise((res) => setTimeout(res, 150));
  }
});
