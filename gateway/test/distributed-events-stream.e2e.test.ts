/**
 * Issue 34, rows M2 and M3 (the third probe) in distributed mode: the live stream through real
 * processes (the all-in-one's cases: services/identity/test/events-stream.test.ts and
 * launcher/test/all-in-one/stream-credentials.test.ts; limits across replicas:
 * launcher/test/events-stream-replicas.test.ts). Identity, the webhook-worker (which writes the
 * push-event log) and the gateway, over one LMDB documents store, Redis Streams and the Redis
 * cache port (CACHE_DRIVER=redis, a prefix unique to this run).
 * - M2: the worker announces appended events over Redis pub/sub, so an idle stream behind the
 *   gateway reads the log only at its credential re-check (identity's /metrics counts the reads),
 *   and a new event still arrives at once.
 * - M3: the gateway's signed principal names the API key; identity looks it up every re-check, so
 *   revoking the key ends the open stream within seconds with `event: error`.
 * Skipped when Redis does not answer. Readiness: 60 s per process; waits: 60 s.
 */
import { randomBytes } from 'node:crypto';
import { deleteRedisKeys } from '@pylon/adapters/redis';
import { createAccount, createApiKey, createUser } from '@pylon/identity';
import { openEventStream, until, type OpenEventStream } from '@pylon/kit/testing';
import { freePort, gatewayEnv, Processes, REDIS_URL, redisAnswers, seedIdentity } from './processes.js';

const secret = randomBytes(32).toString('hex');
const ACCOUNT = `dist-sse-${randomBytes(4).toString('hex')}`;
const KEY = `distributed-sse-key-${randomBytes(8).toString('hex')}`;
const DOOMED = `distributed-sse-doomed-${randomBytes(8).toString('hex')}`;
const PREFIX = `pylon-test-sse-${randomBytes(4).toString('hex')}:`;
const LIMIT = 60_000;
const redisUp = await redisAnswers();
if (!redisUp && process.env.CI) throw new Error(`Redis at ${REDIS_URL} is needed under CI`);

let procs: Processes;
let gatewayUrl = '';
let identityUrl = '';
let doomedId = '';

(redisUp ? describe : describe.skip)('the live stream in distributed mode', () => {
  beforeAll(async () => {
    procs = await Processes.inTempDir('dist-sse', { secret, logLevel: 'warn' });
    doomedId = await seedIdentity(procs.dataDir, secret, async ({ repo }) => {
      await createAccount(repo, { id: ACCOUNT, name: 'Stream Co' });
      const owner = await createUser(repo, { accountId: ACCOUNT, username: `owner@${ACCOUNT}.example`, roles: ['Owner', 'API'] });
      await createApiKey(repo, { accountId: ACCOUNT, userId: owner.id, name: 'e2e', value: KEY });
      return (await createApiKey(repo, { accountId: ACCOUNT, userId: owner.id, name: 'doomed', value: DOOMED })).key.id;
    });

    const shared = { STREAM_DRIVER: 'redis', CACHE_DRIVER: 'redis', REDIS_URL, REDIS_STREAM_PREFIX: PREFIX };
    const [pi, pw, pg, dead] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    [identityUrl] = await Promise.all([
      procs.start('services/identity/src/main.ts', shared, pi, LIMIT),
      procs.start('services/identity/src/webhooks.main.ts', shared, pw, LIMIT),
    ]);
    const nowhere = `http://127.0.0.1:${dead}`;
    gatewayUrl = await procs.start('gateway/src/gateway.main.ts', gatewayEnv(nowhere, { IDENTITY_URL: identityUrl, REDIS_URL }), pg, LIMIT);
  }, 4 * LIMIT);

  afterAll(async () => {
    await procs?.dispose();
    // The run's stream and its consumer groups (the leases lapse by themselves).
    await deleteRedisKeys(REDIS_URL, PREFIX);
  });

  /** A GraphQL request through the gateway with the owner's key. */
  const gql = async (query: string, variables?: Record<string, unknown>) =>
    (await (
      await fetch(`${gatewayUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-apikey': KEY },
        body: JSON.stringify({ query, variables }),
      })
    ).json()) as { data?: Record<string, any>; errors?: unknown[] };

  const openStream = (key: string) => openEventStream(`${gatewayUrl}/events/stream`, { 'x-service-apikey': key });
  /** Runs `body` on a stream of `key` once the stream said it is open; closes it after. */
  const withOpenStream = async (key: string, body: (stream: OpenEventStream) => Promise<void>) => {
    const stream = await openStream(key);
    expect(stream.status).toBe(200);
    try {
      await until('the stream open', () => stream.text().includes(': stream open'), LIMIT);
      await body(stream);
    } finally {
      stream.close();
    }
  };

  /** identity's count of push-event log reads by open streams (its /metrics, loopback). */
  const logReads = async () => {
    const metrics = await (await fetch(`${identityUrl}/metrics`)).text();
    return Number(/^pylon_events_stream_log_reads_total(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1] ?? NaN);
  };

  test(
    "M2: an idle stream reads the log at its re-checks only (the worker's notices come over Redis), and a new event arrives at once",
    () =>
      withOpenStream(KEY, async (live) => {
        const before = await logReads();
        expect(Number.isFinite(before)).toBe(true);
        // Idle 3 s: a read per credential re-check (every 2 s), not one every 200 ms (15 before).
        await new Promise((r) => setTimeout(r, 3_000));
        const idleReads = (await logReads()) - before;
        expect(idleReads).toBeLessThanOrEqual(3);
        const sent = Date.now();
        const made = await gql('mutation($u: String!) { createUser(input: { username: $u, roles: ["Viewer"] }) { success user { id } } }', {
          u: `viewer-${randomBytes(3).toString('hex')}@${ACCOUNT}.example`,
        });
        expect(made.data?.createUser).toMatchObject({ success: true });
        const userId = made.data!.createUser.user.id as string;
        await until('user.created on the stream', () => live.text().includes(userId), LIMIT);
        console.log(`distributed: event to stream ${Date.now() - sent} ms after the mutation was sent; ${idleReads} log reads while idle 3 s`);
      }),
    3 * LIMIT,
  );

  test(
    'M3: revoking the key ends its open stream through the gateway within seconds, with event: error',
    () =>
      withOpenStream(DOOMED, async (doomed) => {
        const revoked = await gql('mutation($id: String!) { revokeApiKey(id: $id) { success } }', { id: doomedId });
        expect(revoked.data?.revokeApiKey).toEqual({ success: true });
        const at = Date.now();
        // The re-check runs every 2 s; 15 s leaves room for a busy machine.
        await until('the stream ended', () => doomed.ended(), 15_000);
        expect(doomed.text()).toMatch(/event: error\ndata: .*UNAUTHENTICATED/);
        console.log(`distributed: stream ended ${Date.now() - at} ms after the revocation answered`);
        // The key is refused at the edge from now on too.
        expect((await openStream(DOOMED)).status).toBe(401);
      }),
    2 * LIMIT,
  );
});
