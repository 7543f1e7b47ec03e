/**
 * `kill -9` of `npm start` mid-load loses no acknowledged record: the all-in-one server runs as a
 * real child process (node itself, so SIGKILL reaches it), four players post play-log batches as
 * fast as they can, the process is killed while requests are in flight, restarted on the same data
 * dir, and every play log that was answered 202 must be queryable afterwards (embedded drivers:
 * LMDB stream, chDB store).
 */
import { childrenOnOneDataDir, createScreens, playLogBatch } from './all-in-one-child.js';
import { freePort } from './processes.js';

const KEY = 'kill9-bootstrap-key-0123456789';
const children = childrenOnOneDataDir('kill9', KEY);

test('every play log acknowledged before the kill is stored after the restart', async () => {
  const port = await freePort();
  const first = await children.start(port);
  const { url } = first;
  const screens = await createScreens(first, 4, 'Kill screen');

  const acked = new Map<string, Set<string>>(screens.map((s) => [s.id, new Set<string>()]));
  let stop = false;
  const base = Date.now() - 3_600_000;
  const load = screens.map(async (s, p) => {
    for (let b = 0; !stop && acked.get(s.id)!.size < 2_000; b++) {
      const batch = playLogBatch('k9', p, b, 50, base);
      const res = await fetch(`${url}/player/${s.registration_key}/playlogs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      }).catch(() => null);
      if (!res) return; // the server is gone
      if (res.status === 202) for (const r of batch) acked.get(s.id)!.add(r.id);
    }
  });
  const total = () => [...acked.values()].reduce((n, s) => n + s.size, 0);
  const deadline = Date.now() + 60_000;
  while (total() < 2_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  // Mid-load: requests are in flight right now.
  first.child.kill('SIGKILL');
  await first.exited;
  stop = true;
  await Promise.all(load);
  const acknowledged = total();
  expect(acknowledged).toBeGreaterThanOrEqual(2_000);

  const restarted = await children.start(port);
  const stored = async (deviceId: string) => {
    const res = await restarted.api('POST', '/graphql', {
      query: 'query($d: [String!]) { playLogs(startDate: "2000-01-01", endDate: "2100-01-01", deviceId: $d, limit: 5000) { id } }',
      variables: { d: [deviceId] },
    });
    const body = (await res.json()) as { data?: { playLogs: { id: string }[] } };
    return new Set((body.data?.playLogs ?? []).map((r) => r.id));
  };
  // Acknowledged-to-queryable is well under this even right after a restart.
  const until = Date.now() + 60_000;
  let missing: string[];
  do {
    missing = [];
    for (const s of screens) {
      const have = await stored(s.id);
      for (const id of acked.get(s.id)!) if (!have.has(id)) missing.push(id);
    }
    if (missing.length === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  } while (Date.now() < until);
  expect({ acknowledged, missing: missing.slice(0, 10), missingCount: missing.length }).toEqual({ acknowledged, missing: [], missingCount: 0 });
}, 300_000);
