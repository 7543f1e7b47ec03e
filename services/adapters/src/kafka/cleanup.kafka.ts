/**
 * Deletes the topics and consumer groups whose names start with a prefix: what a self-check run
 * created on the operator's cluster (every topic and group it uses carries its run's prefix).
 */
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';

export interface KafkaCleanupOptions {
  brokers: string[];
  clientId?: string;
  ssl?: boolean;
  sasl?: SASLOptions;
}

/** Answers what was deleted. The prefix must be non-empty. */
export async function deleteKafkaPrefix(o: KafkaCleanupOptions, prefix: string): Promise<{ topics: string[]; groups: string[] }> {
  if (!prefix) throw new Error('deleteKafkaPrefix: an empty prefix would match every topic');
  const admin = new Kafka({
    brokers: o.brokers,
    clientId: o.clientId ?? 'pylon-verify',
    ...(o.ssl !== undefined ? { ssl: o.ssl } : {}),
    ...(o.sasl ? { sasl: o.sasl } : {}),
    logLevel: logLevel.NOTHING,
  }).admin();
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
