/**
 * Heartbeats between chunks and a rebalance that abandons the chunk (issue 33, row 3), through
 * createKafkaStream and kafkajs 2.2.4's own consumer run loop (Runner, ConsumerGroup,
 * OffsetManager), with the broker scripted under kafkajs's Cluster (kafka-cluster.helpers.ts).
 *
 * - A handler slower than the session timeout keeps its member: the adapter heartbeats while the
 *   handler runs (kafkajs itself only heartbeats between fetches), so the coordinator never sees a
 *   silence longer than the session. Without that heartbeat the member is evicted mid-chunk and a
 *   second member would read the same partition.
 * - A heartbeat answered REBALANCE_IN_PROGRESS or UNKNOWN_MEMBER_ID: the handler's next
 *   `heartbeat()` rejects with LeaseLostError, the chunk is neither resolved nor committed, kafkajs
 *   rejoins, and the chunk is delivered again from the last committed offset.
 */
import { isLeaseLost, type StreamMessage } from '@pylon/kit/ports/stream';
import { createKafkaStream } from '../../src/kafka/stream.kafka.js';
import { installScriptedCluster, KAFKA_ERROR } from '../kafka-cluster.helpers.js';

const TOPIC = 'telemetry.test';
const VALUES = Array.from({ length: 6 }, (_, i) => ({ n: i }));
const SESSION_MS = 2_000; // a handler call below lasts 2.5 sessions
const HEARTBEAT_MS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, limitMs = 60_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };
let cluster: ReturnType<typeof installScriptedCluster>;
afterEach(() => cluster?.restore());

function stream() {
  return createKafkaStream({
    brokers: ['127.0.0.1:1'], // never dialled: the cluster is scripted
    clientId: 'heartbeat-test',
    sessionTimeoutMs: SESSION_MS,
    heartbeatIntervalMs: HEARTBEAT_MS,
    retryBaseMs: 10,
    retryMaxMs: 50,
    logger: quiet, // kafkajs's own lines ("The group is rebalancing, re-joining") are expected here
  });
}

test('a handler slower than the session timeout heartbeats meanwhile and keeps its member; the chunk is committed once', async () => {
  cluster = installScriptedCluster({ topic: TOPIC, values: VALUES });
  const s = stream();
  const calls: { start: number; end: number; n: number }[] = [];
  const sub = await s.subscribe(TOPIC, { group: 'slow', maxBatchSize: 3 }, async (msgs: StreamMessage[]) => {
    const start = Date.now();
    await sleep(SESSION_MS * 2.5); // one long store call: no heartbeat() from the handler
    calls.push({ start, end: Date.now(), n: msgs.length });
  });
  try {
    await until('both chunks committed', () => cluster.state.commits.some((c) => c.offset === String(VALUES.length)));
    const first = calls[0]!;
    const during = cluster.state.heartbeats.filter((h) => h.at > first.start && h.at < first.end);
    const maxGap = Math.max(...cluster.state.heartbeats.map((h) => h.gapMs));
    // Measured facts, for the report and the commit.
    console.log(`handler ${first.end - first.start} ms, heartbeats during it ${during.length}, largest silence ${maxGap} ms, session ${SESSION_MS} ms`);
    expect(cluster.state.evictions).toEqual([]);
    expect(during.length).toBeGreaterThanOrEqual(3);
    expect(maxGap).toBeLessThan(SESSION_MS);
    expect(cluster.state.joins).toBe(1);
    expect(calls.map((c) => c.n)).toEqual([3, 3]); // each chunk handled once
  } finally {
    await sub.close();
    await s.close();
  }
}, 120_000);

test.each([
  ['REBALANCE_IN_PROGRESS', KAFKA_ERROR.REBALANCE_IN_PROGRESS],
  ['UNKNOWN_MEMBER_ID', KAFKA_ERROR.UNKNOWN_MEMBER_ID],
])(
  'a heartbeat answered %s abandons the chunk: not resolved, not committed, delivered again after the rejoin',
  async (_name, code) => {
    cluster = installScriptedCluster({ topic: TOPIC, values: VALUES });
    let failAt = Infinity;
    cluster.state.failHeartbeat = (n) => (n === failAt ? code : undefined);
    const s = stream();
    const deliveries: { first: unknown; n: number; outcome: string; commitsBefore: number }[] = [];
    const sub = await s.subscribe(TOPIC, { group: 'rebalance', maxBatchSize: VALUES.length }, async (msgs, ctx) => {
      const d = { first: (msgs[0]!.value as { n: number }).n, n: msgs.length, outcome: 'done', commitsBefore: cluster.state.commits.length };
      deliveries.push(d);
      // The first delivery: the coordinator answers the next heartbeat with a rebalance error.
      if (deliveries.length === 1) failAt = cluster.state.heartbeats.length + 1;
      try {
        // A store call in steps with a heartbeat between them, as the ingest makes them.
        for (let step = 0; step < 20; step++) {
          await sleep(HEARTBEAT_MS);
          await ctx!.heartbeat();
        }
      } catch (e) {
        d.outcome = isLeaseLost(e) ? 'lease lost' : String(e);
        throw e;
      }
    });
    try {
      await until('the chunk delivered again and committed', () => cluster.state.commits.some((c) => c.offset === String(VALUES.length)));
      expect(deliveries.map((d) => ({ first: d.first, n: d.n, outcome: d.outcome }))).toEqual([
        { first: 0, n: VALUES.length, outcome: 'lease lost' },
        { first: 0, n: VALUES.length, outcome: 'done' }, // again from offset 0: nothing was resolved
      ]);
      // Nothing of the abandoned chunk was committed: every commit before the redelivery names offset 0 or none.
      const before = cluster.state.commits.slice(0, deliveries[1]!.commitsBefore);
      expect(before.filter((c) => Number(c.offset) > 0)).toEqual([]);
      expect(cluster.state.joins).toBe(2); // kafkajs rejoined
      expect(cluster.state.commits.at(-1)).toEqual({ generation: 2, offset: String(VALUES.length) });
    } finally {
      await sub.close();
      await s.close();
    }
  },
  120_000,
);
