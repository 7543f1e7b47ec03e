/**
 * kafkajs's OWN consumer-group code (consumer/consumerGroup.js: join, leader assignment, sync and
 * the member's filter of topics it did not subscribe to) and its own RoundRobinAssigner, with the
 * broker's group coordinator scripted as the Kafka protocol defines it: JoinGroup waits for every
 * member, answers the member list to the leader only (the first member to join); SyncGroup hands
 * each member the part of the leader's assignment that names it. No broker runs here; what decides
 * who reads which partition is kafkajs's code, unchanged.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as new (o: Record<string, unknown>) => KafkajsGroup;
const RoundRobinAssigner = require('kafkajs/src/consumer/assigners/roundRobinAssigner/index.js') as (o: { cluster: unknown }) => unknown;
const InstrumentationEmitter = require('kafkajs/src/instrumentation/emitter.js') as new () => unknown;
const { createLogger, LEVELS } = require('kafkajs/src/loggers/index.js') as {
  createLogger(o: { level: number; logCreator: () => () => void }): unknown;
  LEVELS: { NOTHING: number };
};

interface KafkajsGroup {
  joinAndSync(): Promise<void>;
  assigned(): { topic: string; partitions: number[] }[];
  memberId: string | null;
}

/** One consumer of the group: the topics it subscribes to (what `consumer.subscribe` was given). */
export interface Member {
  name: string;
  topics: string[];
}

/** Partitions read by anyone, as `topic:partition`, after kafkajs's join and sync of `members` (joined in that order: the first leads). */
export async function assignedPartitions(members: Member[], partitions: Record<string, number>): Promise<Map<string, string[]>> {
  const joins: { memberId: string; metadata: Buffer; resolve: (r: unknown) => void }[] = [];
  const assignments = new Map<string, Buffer>();
  let assignmentReady: (v?: unknown) => void = () => undefined;
  const assigned = new Promise((r) => (assignmentReady = r));
  let leaderId = '';

  const coordinator = {
    joinGroup({ groupProtocols, memberId }: { groupProtocols: { name: string; metadata: Buffer }[]; memberId: string }) {
      const id = memberId || `member-${joins.length}`;
      return new Promise((resolve) => {
        joins.push({ memberId: id, metadata: groupProtocols[0]!.metadata, resolve });
        if (joins.length === 1) leaderId = id;
        if (joins.length < members.length) return;
        const all = joins.map((j) => ({ memberId: j.memberId, memberMetadata: j.metadata }));
        for (const j of joins) {
          j.resolve({ generationId: 1, leaderId, memberId: j.memberId, members: j.memberId === leaderId ? all : [], groupProtocol: 'RoundRobinAssigner' });
        }
      });
    },
    async syncGroup({ memberId, groupAssignment }: { memberId: string; groupAssignment: { memberId: string; memberAssignment: Buffer }[] }) {
      if (memberId === leaderId) {
        for (const a of groupAssignment) assignments.set(a.memberId, a.memberAssignment);
        assignmentReady();
      }
      await assigned;
      return { memberAssignment: assignments.get(memberId) ?? Buffer.alloc(0) };
    },
    heartbeat: async () => undefined,
    leaveGroup: async () => undefined,
  };
  const cluster = {
    findGroupCoordinator: async () => coordinator,
    refreshMetadata: async () => undefined,
    refreshMetadataIfNecessary: async () => undefined,
    findTopicPartitionMetadata: (topic: string) => Array.from({ length: partitions[topic] ?? 0 }, (_, partitionId) => ({ partitionId })),
    committedOffsets: () => ({}), // a new group: nothing committed yet
  };
  const logger = createLogger({ level: LEVELS.NOTHING, logCreator: () => () => undefined });

  // Joined one after the other (the first to join leads), synced together.
  const groups: KafkajsGroup[] = [];
  const synced: Promise<void>[] = [];
  for (const m of members) {
    const g = new ConsumerGroup({
      retry: { retries: 0 },
      cluster,
      groupId: 'g',
      topics: m.topics,
      topicConfigurations: {},
      logger,
      instrumentationEmitter: new InstrumentationEmitter(),
      assigners: [RoundRobinAssigner({ cluster })],
      sessionTimeout: 30_000,
      rebalanceTimeout: 60_000,
    });
    groups.push(g);
    synced.push(g.joinAndSync());
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(synced);
  const out = new Map<string, string[]>();
  groups.forEach((g, i) =>
    out.set(
      members[i]!.name,
      g.assigned().flatMap(({ topic, partitions: ps }) => ps.map((p) => `${topic}:${p}`)),
    ),
  );
  return out;
}
