/**
 * Creates the stream topics ahead of time (the migrations job): on clusters where serving
 * processes may not create topics, and so partitions are set once, not by whichever process
 * publishes first. Topics that exist are left as they are.
 */
import { Kafka, logLevel } from 'kafkajs';

export interface KafkaTopicsOptions {
  brokers: string[];
  clientId?: string;
  topics: string[];
  numPartitions?: number;
  replicationFactor?: number;
}

/** Answers the topics it created (empty when all existed). */
export async function createKafkaTopics(o: KafkaTopicsOptions): Promise<string[]> {
  const admin = new Kafka({ brokers: o.brokers, clientId: o.clientId ?? 'pylon-migrate', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = o.topics.filter((t) => !existing.has(t));
    if (missing.length === 0) return [];
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({
        topic,
        numPartitions: o.numPartitions ?? 3,
        ...(o.replicationFactor ? { replicationFactor: o.replicationFactor } : {}),
      })),
    });
    return missing;
  } finally {
    await admin.disconnect();
  }
}
