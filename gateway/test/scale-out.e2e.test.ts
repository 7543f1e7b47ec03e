/**
 * Scale-out: two gateway replicas and two devices-subgraph replicas as separate processes (with
 * one identity, content and scheduling process), sharing Redis (cache, pub/sub, rate limits) and
 * the documents store. Gateway A talks to devices A, gateway B to devices B, as two pods behind
 * two Services' load balancing would. Replicas must not keep state the others cannot see:
 * - a command sent through gateway A reaches a player long-polling devices B;
 * - a schedule change through gateway B invalidates the cached manifest version that devices A
 *   and devices B hand out;
 * - an API key revoked through gateway A stops working on both gateways (their principal caches).
 * Needs Redis (REDIS_URL or the local default); under CI its absence fails the suite.
 */
import { randomBytes } from 'node:crypto';
import { createAccount, createApiKey, createUser } from '@pylon/identity';
import { freePort, Processes, REDIS_URL, redisAnswers, seedIdentity } from './processes.js';

type Json = Record<string, any>;
const redis = await redisAnswers(REDIS_URL);
if (!redis && process.env.CI) throw new Error(`Redis at ${REDIS_URL} is needed under CI`);

const secret = randomBytes(32).toString('hex');
const ACCOUNT = `scale-${randomBytes(4).toString('hex')}`;
const START_MS = 90_000;
let procs: Processes;
let key: string;
let spare: { id: string; value: string };
const gw = { a: '', b: '' };
const dev = { a: '', b: '' };

(redis ? describe : describe.skip)('two gateways and two devices replicas over shared Redis', () => {
  beforeAll(async () => {
    procs = await Processes.inTempDir('scale', { secret, logLevel: 'warn' });
    await seedIdentity(procs.dataDir, secret, async ({ repo }) => {
      await createAccount(repo, { id: ACCOUNT, name: 'Scale-out', timezone: 'UTC' });
      await createUser(repo, { accountId: ACCOUNT, id: 'owner', username: `owner-${ACCOUNT}`, roles: ['Owner', 'API'] });
      key = (await createApiKey(repo, { accountId: ACCOUNT, userId: 'owner', name: 'main' })).value;
      spare = await createApiKey(repo, { accountId: ACCOUNT, userId: 'owner', name: 'to revoke' }).then((k) => ({ id: k.key.id, value: k.value }));
    });

    const [pi, pc, ps, pda, pdb, pga, pgb] = (await Promise.all(Array.from({ length: 7 }, () => freePort()))) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const at = (p: number) => `http://127.0.0.1:${p}`;
    const shared = { CACHE_DRIVER: 'redis', REDIS_URL, IDENTITY_URL: at(pi), CONTENT_URL: at(pc), SCHEDULING_URL: at(ps), DEVICES_URL: at(pda) };
    await Promise.all([
      procs.start('services/identity/src/main.ts', { ...shared, OAUTH_ISSUER: at(pi), REVOCATION_POLL_MS: '200' }, pi, START_MS),
      procs.start('services/content/src/main.ts', shared, pc, START_MS),
      procs.start('services/scheduling/src/main.ts', shared, ps, START_MS),
      procs.start('services/devices/src/main.ts', shared, pda, START_MS).then((u) => (dev.a = u)),
      procs.start('services/devices/src/main.ts', shared, pdb, START_MS).then((u) => (dev.b = u)),
    ]);
    const gateway = (devices: number) => ({
      REDIS_URL,
      IDENTITY_URL: at(pi),
      DEVICES_URL: at(devices),
      CONTENT_URL: at(pc),
      SCHEDULING_URL: at(ps),
      DATATABLES_URL: at(pc),
      ANALYTICS_URL: at(pc),
      PRINCIPAL_CACHE_SECONDS: '300',
    });
    await Promise.all([
      procs.start('gateway/src/gateway.main.ts', gateway(pda), pga, START_MS).then((u) => (gw.a = u)),
      procs.start('gateway/src/gateway.main.ts', gateway(pdb), pgb, START_MS).then((u) => (gw.b = u)),
    ]);
  }, 240_000);

  afterAll(async () => {
    await procs?.dispose();
  });

  async function gql(gateway: string, query: string, variables: Json = {}, apiKey = key): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${gateway}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-apikey': apiKey },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  }
  const ping = async (devices: string, registrationKey: string, wait = 0) =>
    (await (
      await fetch(`${devices}/player/${registrationKey}/ping${wait ? `?wait=${wait}` : ''}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as Json;

  let screen: { id: string; registrationKey: string };

  test('a command sent through gateway A reaches a player long-polling devices B', async () => {
    const created = await gql(gw.a, 'mutation { createDevice(input: { name: "Lobby" }) { success error device { id registrationKey } } }');
    expect(created.body.data.createDevice).toMatchObject({ success: true, error: null });
    screen = created.body.data.createDevice.device;
    await ping(dev.b, screen.registrationKey); // registered and online on B
    const started = Date.now();
    const waiting = ping(dev.b, screen.registrationKey, 20);
    await new Promise((r) => setTimeout(r, 500));
    const sent = await gql(
      gw.a,
      'mutation($id: String!) { sendDeviceCommand(deviceId: $id, commands: [{ command: "refresh" }]) { success error commandCount } }',
      { id: screen.id },
    );
    expect(sent.body.data.sendDeviceCommand).toMatchObject({ success: true, commandCount: 1 });
    const answer = await waiting;
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(JSON.stringify(answer.commands ?? answer)).toContain('refresh');
  }, 60_000);

  test('a schedule change through gateway B invalidates the manifest version both devices replicas hand out', async () => {
    const before = [(await ping(dev.a, screen.registrationKey)).manifest_version, (await ping(dev.b, screen.registrationKey)).manifest_version];
    expect(before[0]).toBe(before[1]);
    const playlist = await gql(gw.b, 'mutation { createPlaylist(input: { name: "Evening" }) { success playlist { id } } }');
    const playlistId = playlist.body.data.createPlaylist.playlist.id as string;
    const schedule = await gql(gw.b, 'mutation($i: ScheduleInput!) { createSchedule(input: $i) { success error } }', {
      i: { name: 'Always', playlistId, deviceIds: [screen.id] },
    });
    expect(schedule.body.data.createSchedule).toMatchObject({ success: true, error: null });
    for (const devices of [dev.a, dev.b]) {
      let version = before[0];
      for (const end = Date.now() + 10_000; version === before[0] && Date.now() < end;) {
        version = (await ping(devices, screen.registrationKey)).manifest_version;
        if (version === before[0]) await new Promise((r) => setTimeout(r, 100));
      }
      expect(version).not.toBe(before[0]);
    }
    expect((await ping(dev.a, screen.registrationKey)).manifest_version).toBe((await ping(dev.b, screen.registrationKey)).manifest_version);
  }, 60_000);

  test('an API key revoked through gateway A stops working on both gateways', async () => {
    // Both gateways have the key's principal cached.
    for (const g of [gw.a, gw.b]) expect((await gql(g, '{ account { name } }', {}, spare.value)).status).toBe(200);
    const revoked = await gql(gw.a, 'mutation($id: String!) { revokeApiKey(id: $id) { success error } }', { id: spare.id });
    expect(revoked.body.data.revokeApiKey).toMatchObject({ success: true });
    for (const g of [gw.a, gw.b]) {
      let status = 200;
      for (const end = Date.now() + 10_000; status === 200 && Date.now() < end;) {
        status = (await gql(g, '{ account { name } }', {}, spare.value)).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(401);
    }
    // The other key still works on both.
    for (const g of [gw.a, gw.b]) expect((await gql(g, '{ account { name } }')).status).toBe(200);
  }, 60_000);
});
