/**
 * The migrations job's Kafka topics (issue 33, row 7): the broker's replication default unless
 * KAFKA_REPLICATION_FACTOR says otherwise, one partitions setting (KAFKA_NUM_PARTITIONS), every topic
 * Pylon publishes to, TLS and SASL as the serving processes use them; SASL without a user name is
 * refused at start with every problem reported at once.
 */
import { loadConfig, DEAD_LETTER_TOPIC, PUSH_EVENTS_TOPIC, STREAM_TOPICS, TOPICS } from '@pylon/kit';
import { kafkaOptions } from '@pylon/composition/backends';
import { kafkaAdminConfig, topicSpecs } from '@pylon/adapters/kafka';
import { migrateEnv } from '../src/migrate.config.js';

const kafka = { STREAM_DRIVER: 'kafka', KAFKA_BROKERS: 'k1:9093,k2:9093' };

test('topics get the broker default replication, KAFKA_NUM_PARTITIONS partitions, the dead-letter and push-event topics too', () => {
  const env = loadConfig(migrateEnv, { ...kafka, KAFKA_NUM_PARTITIONS: '12' });
  const k = kafkaOptions(env, 'pylon-migrate');
  const topics = topicSpecs(k, STREAM_TOPICS);
  expect(topics.map((t) => t.topic).sort()).toEqual([...Object.values(TOPICS), DEAD_LETTER_TOPIC, PUSH_EVENTS_TOPIC].sort());
  for (const t of topics) {
    expect(t.numPartitions).toBe(12);
    expect(t.replicationFactor).toBeUndefined(); // kafkajs sends -1: the broker's default.replication.factor
  }
  expect(topicSpecs({ ...k, replicationFactor: 3 }, ['x'])[0]!.replicationFactor).toBe(3);
});

test('the admin client connects with the serving processes TLS and SASL', () => {
  const env = loadConfig(migrateEnv, {
    ...kafka,
    KAFKA_SSL: 'true',
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: 'pylon',
    KAFKA_SASL_PASSWORD: 'secret-password',
  });
  const client = kafkaAdminConfig(kafkaOptions(env, 'pylon-migrate'), 'pylon-migrate');
  expect(client).toMatchObject({ ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'pylon', password: 'secret-password' } });
});

test('a SASL mechanism without a user name (or password) is refused at start, every problem named at once', () => {
  let message = '';
  try {
    loadConfig(migrateEnv, { ...kafka, KAFKA_SASL_MECHANISM: 'plain', KAFKA_NUM_PARTITIONS: '0' });
  } catch (e) {
    message = (e as Error).message;
  }
  expect(message).toMatch(/KAFKA_SASL_USERNAME/);
  expect(message).toMatch(/KAFKA_SASL_PASSWORD/);
  expect(message).toMatch(/KAFKA_NUM_PARTITIONS/);
});
