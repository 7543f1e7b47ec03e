/**
 * Device commands over REST: a send answers 204 (the reference) with a `Location` naming the queued
 * commands; `GET /devices/{id}/commands` lists them with their status as the player moves them on.
 */
import { startHarness, type Harness } from './harness.js';
import { otherAccountKey } from './other-account.js';

let h: Harness;
let device: { id: string; registration_key: string };
beforeAll(async () => {
  h = await startHarness();
  device = (await (await call('POST', '/devices', { name: 'Commands screen' })).json()) as typeof device;
}, 60_000);
afterAll(() => h.stop());

function call(method: string, path: string, body?: unknown, key = h.key): Promise<Response> {
  return fetch(`${h.baseUrl}${path}`, {
    method,
    headers: { 'x-service-apikey': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
type Listed = { id: string; command: string; arg: string | null; status: string; device_id: string }[];

test('a send answers 204 with a Location that lists exactly the queued commands, then their status moves on', async () => {
  const sent = await call('POST', `/devices/${device.id}/commands`, [{ command: 'volume', arg: '40' }, { command: 'screenshot' }]);
  expect(sent.status).toBe(204);
  const location = sent.headers.get('location')!;
  expect(location).toMatch(new RegExp(`^/devices/${device.id}/commands\\?id=[^&]+&id=[^&]+$`));
  // An earlier command that the Location does not name.
  await call('POST', `/devices/${device.id}/commands`, [{ command: 'reboot' }]);

  const queued = (await (await call('GET', location)).json()) as Listed;
  expect(queued.map((c) => [c.command, c.arg, c.status, c.device_id]).sort()).toEqual([
    ['screenshot', null, 'Queued', device.id],
    ['volume', '40', 'Queued', device.id],
  ]);
  expect((await (await call('GET', `/devices/${device.id}/commands`)).json()) as Listed).toHaveLength(3);

  // The player takes them on its ping and acknowledges one.
  const ping = await fetch(`${h.baseUrl}/player/${device.registration_key}/ping`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(ping.status).toBe(200);
  const volume = queued.find((c) => c.command === 'volume')!;
  const ack = await fetch(`${h.baseUrl}/player/${device.registration_key}/commands/${volume.id}/ack`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'acknowledged' }),
  });
  expect(ack.status).toBeLessThan(300);
  const after = (await (await call('GET', location)).json()) as Listed;
  expect(Object.fromEntries(after.map((c) => [c.command, c.status]))).toEqual({ volume: 'Acknowledged', screenshot: 'Delivered' });
  const acknowledged = (await (await call('GET', `/devices/${device.id}/commands?status=Acknowledged`)).json()) as Listed;
  expect(acknowledged.map((c) => c.id)).toEqual([volume.id]);
});

test('bad input names the parameter; unknown and foreign devices are 404', async () => {
  const bad = await call('GET', `/devices/${device.id}/commands?status=Done`);
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('status');
  expect((await call('GET', '/devices/no-such-device/commands')).status).toBe(404);

  const value = await otherAccountKey(h, 'commands-other', 'other@commands.example');
  expect((await call('GET', `/devices/${device.id}/commands`, undefined, value)).status).toBe(404);
  expect((await call('POST', `/devices/${device.id}/commands`, [{ command: 'reboot' }], value)).status).toBe(404);
});

test('a JSON body sent without Content-Type is 415 naming the header to send, not "requestBody is required"', async () => {
  const res = await fetch(`${h.baseUrl}/devices/${device.id}/commands`, {
    method: 'POST',
    headers: { 'x-service-apikey': h.key, 'content-type': 'application/x-www-form-urlencoded' }, // what curl -d sends without -H
    body: JSON.stringify([{ command: 'reboot' }]),
  });
  expect(res.status).toBe(415);
  const { error } = (await res.json()) as { error: { code: string; message: string; field: string; request_id: string } };
  expect(error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', field: 'Content-Type' });
  expect(error.message).toContain('Content-Type: application/json');
  expect(error.message).toContain("'application/x-www-form-urlencoded'");
  // A request that really sent no body still hears that the body is required.
  const empty = await fetch(`${h.baseUrl}/devices/${device.id}/commands`, { method: 'POST', headers: { 'x-service-apikey': h.key } });
  expect(empty.status).toBe(400);
});

test('a schedule error names the REST field (start_time), not the GraphQL one', async () => {
  const playlist = (await (await call('POST', '/playlists', { name: 'Field names' })).json()) as { id: string };
  const res = await call('POST', '/schedules', { name: 'Bad time', playlist_id: playlist.id, devices: [{ id: device.id }], start_time: '25:99' });
  expect(res.status).toBe(400);
  const { error } = (await res.json()) as { error: { field: string; message: string } };
  expect(error.field).toBe('start_time');
  expect(error.message).not.toContain('startTime');
});

test('fleet-wide bulk over REST: a dry run counts, a job tags and sends commands with per-device results, an oversized id list is 413', async () => {
  const ids = [device.id];
  for (const name of ['Bulk 1', 'Bulk 2']) ids.push(((await (await call('POST', '/devices', { name })).json()) as { id: string }).id);
  const selector = { ids: [...ids, 'no-such-device'] };
  const dry = await call('POST', '/devices/bulk', { selector, action: 'add_tags', tags: ['bulk-e2e'], dry_run: true });
  expect(dry.status).toBe(200);
  expect(((await dry.json()) as { dry_run: unknown }).dry_run).toMatchObject({ targets: 3, not_found: 1, not_found_sample: ['no-such-device'] });

  const finished = async (res: Response) => {
    expect(res.status).toBe(202);
    const { job_id, links } = (await res.json()) as { job_id: string; links: { self: string; results: string } };
    expect(links).toEqual({ self: `/jobs/${job_id}`, results: `/devices/bulk/${job_id}/results` });
    for (const deadline = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 50))) {
      const job = (await (await call('GET', links.self)).json()) as { state: string; progress: Record<string, number> };
      if (!['queued', 'running'].includes(job.state)) return { job, results: (await (await call('GET', links.results)).json()) as Record<string, unknown>[] };
      if (Date.now() > deadline) throw new Error(`bulk job still ${job.state} after 60 s`);
    }
  };
  const tagged = await finished(await call('POST', '/devices/bulk', { selector, action: 'add_tags', tags: ['bulk-e2e'] }));
  expect(tagged.job).toMatchObject({ state: 'succeeded', progress: { rows_done: 4, rows_total: 4, rows_failed: 1 } });
  expect(tagged.results.map((r) => [r.device_id, r.state, r.error_code])).toEqual([
    [ids[0], 'ok', null],
    [ids[1], 'ok', null],
    [ids[2], 'ok', null],
    ['no-such-device', 'failed', 'NOT_FOUND'],
  ]);
  const sent = await finished(
    await call('POST', '/devices/bulk', { selector: { tags: ['bulk-e2e'] }, action: 'send_commands', commands: [{ command: 'refresh' }] }),
  );
  expect(sent.job).toMatchObject({ state: 'succeeded', progress: { rows_done: 3, rows_failed: 0 } });
  const queued = (await (await call('GET', `/devices/${ids[1]}/commands`)).json()) as Listed;
  expect(queued.map((c) => [c.command, c.status])).toEqual([['refresh', 'Queued']]);

  // An id list of any length, within the body limit (1,000,000 bytes): past it, 413 naming the limit.
  const huge = await call('POST', '/devices/bulk', {
    selector: { ids: Array.from({ length: 30_000 }, () => crypto.randomUUID()) },
    action: 'add_tags',
    tags: ['x'],
  });
  expect(huge.status).toBe(413);
  expect(((await huge.json()) as { error: { code: string; message: string } }).error).toMatchObject({
    code: 'PAYLOAD_TOO_LARGE',
    message: expect.stringMatching(/1000000 bytes/),
  });
  const bad = await call('POST', '/devices/bulk', { selector: {}, action: 'add_tags', tags: ['x'] });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('selector');
  expect((await call('GET', '/devices/bulk/no-such-job/results')).status).toBe(404);
});
