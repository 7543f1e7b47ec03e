/**
 * Two replicas (two devices subgraphs and two player APIs on one shared store, each with its own
 * PubSub instance): a command sent through replica A reaches a device long-polling replica B at
 * once. Runs with the in-process hub always, and with a real Redis (REDIS_URL, default
 * redis://127.0.0.1:6379) when one answers.
 */
import { createMemoryPubSub, createMemoryPubSubHub } from '@pylon/adapters/memory';
import { createRedisPubSub } from '@pylon/adapters/redis';
import type { PubSub } from '@pylon/kit';
import { createDevice, principal, startFixture, tokens } from './fixtures/subgraph.js';
import { servePlayer } from './fixtures/player-http.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const probe = createRedisPubSub({ url: REDIS_URL, commandTimeoutMs: 500, connectTimeoutMs: 500 });
  try {
    await probe.publish('pylon.probe', 1);
    return true;
  } catch {
    return false;
  } finally {
    await probe.close();
  }
}

const backends: [string, () => Promise<[PubSub, PubSub] | null>][] = [
  [
    'in-process hub',
    async () => {
      const hub = createMemoryPubSubHub();
      return [createMemoryPubSub(hub), createMemoryPubSub(hub)];
    },
  ],
  [
    'Redis',
    async () => {
      if (!(await redisAnswers())) {
        console.warn(`replicas.test: no Redis at ${REDIS_URL}; the Redis case is skipped`);
        return null;
      }
      const prefix = `pylon-test-${process.pid}-${Date.now()}:`;
      return [createRedisPubSub({ url: REDIS_URL, channelPrefix: prefix }), createRedisPubSub({ url: REDIS_URL, channelPrefix: prefix })];
    },
  ],
];

describe.each(backends)('commands across replicas (%s)', (_name, make) => {
  test('sent through A, delivered to a long-poll on B; a plain ping on B gets queued ones too', async () => {
    const pair = await make();
    if (!pair) return;
    const [pa, pb] = pair;
    const f = await startFixture({ pubsub: pa });
    const b = f.replica({ pubsub: pb });
    const playerB = await servePlayer(b.runtime);
    try {
      const { id, registrationKey } = await createDevice(f, { name: 'Across' });
      const started = Date.now();
      const polling = playerB.ping(registrationKey, {}, '?wait=20');
      // Wait until B's long-poll is registered before sending through A.
      while (b.runtime.wakeups.waiting === 0) await new Promise((r) => setTimeout(r, 20));
      const sent = await f.run('mutation($d: String!) { sendDeviceCommand(deviceId: $d, commands: [{ command: "refresh" }]) { success } }', { d: id });
      expect(sent.data!.sendDeviceCommand.success).toBe(true);
      const r = await polling;
      expect(r.body.commands.map((c: { command: string }) => c.command)).toEqual(['refresh']);
      expect(Date.now() - started).toBeLessThan(5000);

      const ctx = await b.createContext(await tokens.sign(principal('acc-a')));
      await f.run('mutation($d: String!) { sendDeviceCommand(deviceId: $d, commands: [{ command: "reboot" }]) { success } }', { d: id });
      expect((await playerB.ping(registrationKey)).body.commands.map((c: { command: string }) => c.command)).toEqual(['reboot']);
      const seen = await b.execute({ query: 'query($d: String!) { deviceCommands(deviceId: $d) { command status } }', variables: { d: id } }, ctx);
      expect(seen.data).toEqual({
        deviceCommands: [
          { command: 'reboot', status: 'DELIVERED' },
          { command: 'refresh', status: 'DELIVERED' },
        ],
      });
    } finally {
      await playerB.close();
      await f.close();
      await pa.close();
      await pb.close();
    }
  });
});
