/**
 * Runs the stream contract against a real Kafka when KAFKA_BROKERS (comma-separated host:port)
 * is set; topics and groups are unique per run. Skipped otherwise.
 */
import { createKafkaStream } from '../../src/adapters/stream.kafka.js';
import { skipNote, uniqueName } from './wait.helpers.js';
import { streamContract } from './stream.contract.js';

const brokers = (process.env.KAFKA_BROKERS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

if (brokers.length > 0) {
  const clientId = uniqueName('pylon-kit-test');
  streamContract('kafka', () => createKafkaStream({ brokers, clientId, numPartitions: 3 }), { timeoutMs: 30_000 });

  test('kafka: ping fails as UNAVAILABLE when no broker answers', async () => {
    const stream = createKafkaStream({ brokers: ['127.0.0.1:1'], clientId, requestTimeoutMs: 3_000, connectionTimeoutMs: 500 });
    try {
      await expect(stream.ping()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      await stream.close();
    }
  });
} else {
  skipNote('stream.kafka: skipped, KAFKA_BROKERS is not set');
  test.skip('stream.kafka: needs KAFKA_BROKERS', () => undefined);
}
