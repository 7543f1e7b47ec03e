/**
 * Runs the stream contract against a real Kafka when KAFKA_BROKERS (comma-separated host:port)
 * is set; topics and groups are unique per run. Skipped otherwise.
 */
import { createKafkaStream } from '../../src/kafka/stream.kafka.js';
import { Kafka } from 'kafkajs';
import type { StreamMessage } from '@pylon/kit';
import { skipNote, uniqueName, waitFor } from '../../../kit/test/contract/wait.helpers.js';
import { streamContract } from '@pylon/kit/contract/stream.contract';

const brokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

if (brokers.length > 0) {
  const clientId = uniqueName('pylon-kit-test');
  streamContract('kafka', () => createKafkaStream({ brokers, clientId, numPartitions: 3 }), { timeoutMs: 30_000 });

  test('kafka: a value that is not JSON (another producer wrote it) is handed over as its raw text', async () => {
    const topic = uniqueName('raw');
    const stream = createKafkaStream({ brokers, clientId, numPartitions: 1 });
    const raw = new Kafka({ clientId, brokers }).producer();
    try {
      const got: StreamMessage[] = [];
      await stream.subscribe(topic, { group: uniqueName('g'), maxWaitMs: 100 }, async (b) => {
        got.push(...b);
      });
      await raw.connect();
      await raw.send({ topic, messages: [{ value: 'not json {' }, { value: '{"ok":true}' }] });
      await waitFor(() => got.length >= 2, 30_000, 'both messages');
      expect(got.map((m) => m.value)).toEqual(['not json {', { ok: true }]);
    } finally {
      await raw.disconnect().catch(() => undefined);
      await stream.close();
    }
  }, 60_000);
} else {
  skipNote('stream.kafka: skipped, KAFKA_BROKERS is not set');
  test.skip('stream.kafka: needs KAFKA_BROKERS', () => undefined);
}

describe('kafka adapter without a broker', () => {
  const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };
  const dead = () =>
    createKafkaStream({ brokers: ['127.0.0.1:1'], clientId: 'pylon-kit-test', requestTimeoutMs: 2_000, connectionTimeoutMs: 300, logger: quiet });

  test('ping and publish reject as UNAVAILABLE within the request timeout', async () => {
    const stream = dead();
    try {
      const started = Date.now();
      await expect(stream.ping()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(stream.publish('t', [{ value: 1 }])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      expect(Date.now() - started).toBeLessThan(6_000);
    } finally {
      await stream.close();
    }
  });

  test('one group per consumer role: a second subscription in a group with other topics is refused at once', async () => {
    const stream = dead();
    try {
      // The first one is still connecting (no broker) when the second is refused.
      const first = stream.subscribe(['a', 'b'], { group: 'role' }, async () => undefined).catch((e: unknown) => e);
      await expect(stream.subscribe('c', { group: 'role' }, async () => undefined)).rejects.toMatchObject({
        code: 'BAD_USER_INPUT',
        details: { field: 'group' },
      });
      await first;
    } finally {
      await stream.close();
    }
  }, 30_000);

  test('bad input is refused before any network use', async () => {
    const stream = dead();
    try {
      await expect(stream.publish('bad topic!', [{ value: 1 }])).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      await expect(stream.publish('t', [{ value: 1n }])).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      await expect(stream.subscribe('t', { group: '' }, async () => undefined)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      await expect(stream.publish('t', [])).resolves.toBeUndefined();
    } finally {
      await stream.close();
    }
  });
});
