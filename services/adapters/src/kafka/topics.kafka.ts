/**
 * Creates the stream topics ahead of time (the migrations job): on clusters where serving
 * processes may not create topics, and so partitions are set once, not by whichever process
 * publishes first. Topics that exist are left as they are. The admin client connects as the
 * serving processes do (TLS, SASL); a replication factor left unset is the broker's
 * default.replication.factor (-1 in the CreateTopics request), never 1.
 */
import { Kafka, logLevel, type KafkaConfig, type ITopicConfig, type SASLOptions } from 'kafkajs';

export interface KafkaTopicsOptions {
  brokers: string[];
  clientId?: string;
  ssl?: boolean;
  sasl?: SASLOptions;
  topics: string[];
  /** Default 3 (KAFKA_NUM_PARTITIONS). */
  numPartitions?: number;
  /** Absent: the broker's default. */
  replicationFactor?: number;
}

/** An admin client's settings (TLS, SASL as given; kafkajs's own logging off): the migrations job's and the cleanup's. */
export function kafkaAdminConfig(o: Pick<KafkaTopicsOptions, 'brokers' | 'clientId' | 'ssl' | 'sasl'>, defaultClientId: string): KafkaConfig {
  return {
    brokers: o.brokers,
    clientId: o.clientId ?? defaultClientId,
    logLevel: logLevel.NOTHING,
    ...(o.ssl !== undefined ? { ssl: o.ssl } : {}),
    ...(o.sasl ? { sasl: o.sasl } : {}),
  };
}

/** The specs of the topics to create, as sent. */
export function topicSpecs(o: Pick<KafkaTopicsOptions, 'numPartitions' | 'replicationFactor'>, missing: string[]): ITopicConfig[] {
  return missing.map((topic) => ({
    topic,
    numPartitions: o.numPartitions ?? 3,
    ...(o.replicationFactor ? { replicationFactor: o.replicationFactor } : {}),
  }));
}

/** Answers the topics it created (empty when all existed). */
export async function createKafkaTopics(o: KafkaTopicsOptions): Promise<string[]> {
  const admin = new Kafka(kafkaAdminConfig(o, 'pylon-migrate')).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = o.topics.filter((t) => !existing.has(t));
    if (missing.length === 0) return [];
    await admin.createTopics({ waitForLeaders: true, topics: topicSpecs(o, missing) });
    return missing;
  } finally {
    await admin.disconnect();
  }
}
