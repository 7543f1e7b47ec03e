/**
 * Deletes the topics and consumer groups whose names start with a prefix: what a self-check run
 * created on the operator's cluster (every topic and group it uses carries its run's prefix).
 */
import { Kafka, type SASLOptions } from 'kafkajs';
import { kafkaAdminConfig } from './topics.kafka.js';

export interface KafkaCleanupOptions {
  brokers: string[];
  clientId?: string;
  ssl?: boolean;
  sasl?: SASLOptions;
}

/** Answers what was deleted. The prefix must be non-empty. */
export async function deleteKafkaPrefix(o: KafkaCleanupOptions, prefix: string): Promise<{ topics: string[]; groups: string[] }> {
  if (!prefix) throw new Error('deleteKafkaPrefix: an empty prefix would match every topic');
  const admin = new Kafka(kafkaAdminConfig(o, 'pylon-verify')).admin();
  await admin.connect();
  try {
    // Groups first: a group's committed offsets name its topics.
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (groups.length) await admin.deleteGroups(groups);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length) await admin.deleteTopics({ topics });
    return { topics, groups };
  } finally {
    await admin.disconnect();
  }
}
