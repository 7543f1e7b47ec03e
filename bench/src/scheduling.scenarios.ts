/**
 * Scheduling benchmark (issue 11): player manifest resolutions per second for one device in 50
 * overlapping schedules (GET /player/{key}/manifest without If-None-Match: every request
 * authenticates the key, reads the device, its zone and its 50 schedules, asks the engine for now and
 * next (memoised per plan set until its next change, `outlook` in resolution.ts), reads the content
 * and hashes the result), against the same number of plain REST GET /devices/{id} calls in the same
 * run. Target: ≥ 0.8×.
 */
import { newDeviceRecord, type DeviceRepository } from '@pylon/devices';
import { load, probe, table, type LoadResult } from './load.js';

/** The screen scenario 6 makes (its manifest: 50 overlapping schedules). */
export const MANIFEST_REGISTRATION_KEY = 'bench-manifest-0123456789abcdef0123456789';

export async function manifestScenario(o: {
  baseUrl: string;
  key: string;
  accountId: string;
  repo: DeviceRepository;
  seconds: number;
  connections: number;
}): Promise<LoadResult[]> {
  const headers = { 'x-service-apikey': o.key, 'content-type': 'application/json' };
  const registrationKey = MANIFEST_REGISTRATION_KEY;
  const device = await o.repo.addDevice(o.accountId, newDeviceRecord('Manifest bench', registrationKey, { tags: ['bench'], timezone: 'Europe/Amsterdam' }));
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${o.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${(await r.text()).slice(0, 300)}`);
    return (await r.json()) as { id: string };
  };
  const playlists = await Promise.all(Array.from({ length: 5 }, (_, i) => post('/playlists', { name: `Manifest bench ${i}`, type: 'Slideshow' })));
  const priorities = ['Lowest', 'Low', 'Normal', 'High', 'Highest'];
  // 50 schedules that all overlap: whole-day ones and windows of every length, every priority.
  for (let i = 0; i < 50; i++) {
    const windowed = i % 2 === 1;
    await post('/schedules', {
      name: `Overlap ${i}`,
      type: 'Playlist',
      playlist_id: playlists[i % 5]!.id,
      priority: priorities[i % 5],
      devices: [{ id: device.id }],
      ...(windowed ? { start_time: `${String(i % 24).padStart(2, '0')}:00`, end_time: `${String((i * 7) % 24).padStart(2, '0')}:30` } : {}),
      start_date: '2020-01-01',
      end_date: '2099-12-31',
    });
  }
  const manifestUrl = `${o.baseUrl}/player/${registrationKey}/manifest`;
  const deviceUrl = `${o.baseUrl}/devices/${device.id}`;
  await probe(
    manifestUrl,
    {},
    (b) => typeof (b as { version?: unknown })?.version === 'string' && (b as { now?: { schedule_id?: unknown } }).now?.schedule_id !== null,
    'manifest',
  );
  await probe(deviceUrl, { headers: { 'x-service-apikey': o.key } }, (b) => (b as { id?: string })?.id === device.id, 'device');

  const results = [
    await load('REST GET /devices/{id} (baseline)', { url: deviceUrl, headers: { 'x-service-apikey': o.key }, seconds: o.seconds, connections: o.connections }),
    await load('GET /player/{key}/manifest, 50 overlapping schedules', { url: manifestUrl, seconds: o.seconds, connections: o.connections }),
  ];
  console.log('\nScenario 6: player manifest\n');
  console.log(table(results));
  const [d, m] = results as [LoadResult, LoadResult];
  console.log(`\nmanifest / GET /devices/{id}: ${(m.rps / d.rps).toFixed(2)}× (target ≥ 0.80×)`);
  return results;
}
