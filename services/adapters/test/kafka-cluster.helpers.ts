/**
 * A scripted Kafka cluster under kafkajs's OWN consumer: createKafkaStream's real `Kafka`, its
 * consumer, Runner (consumer/runner.js: fetch loop, eachBatch, its heartbeat and rejoin on a
 * rebalance error), ConsumerGroup (join, sync, throttled heartbeat, fetch into Batch) and
 * OffsetManager (resolve, commit) all run unchanged; only kafkajs's Cluster, the object that owns
 * the TCP connections, is replaced on its prototype by one broker that answers in memory as the
 * Kafka protocol defines it: one topic of one partition; JoinGroup bumps the generation; a member
 * whose session (the time since its last JoinGroup or Heartbeat) ran out is evicted and told
 * UNKNOWN_MEMBER_ID, the broker's answer to an evicted member. `install()` returns the broker's
 * log; `restore()` puts kafkajs's Cluster back. No broker runs here.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Cluster = require('kafkajs/src/cluster/index.js') as { prototype: Record<string, unknown> };
const { KafkaJSProtocolError } = require('kafkajs/src/errors.js') as { KafkaJSProtocolError: new (e: unknown) => Error };
const { createErrorFromCode } = require('kafkajs/src/protocol/error.js') as { createErrorFromCode(code: number): unknown };

/** Kafka protocol error codes the script answers with. */
export const KAFKA_ERROR = { UNKNOWN_MEMBER_ID: 25, REBALANCE_IN_PROGRESS: 27 } as const;

export interface ScriptedBroker {
  /** Heartbeats received, with the generation and the time since the member's previous one (ms). */
  heartbeats: { at: number; generation: number; gapMs: number }[];
  /** Members evicted because their session ran out. */
  evictions: { memberId: string; silentMs: number }[];
  joins: number;
  /** OffsetCommit requests: the generation they named and the offset (the next to read). */
  commits: { generation: number; offset: string }[];
  /** Answer the n-th heartbeat (1-based) with this error code instead. */
  failHeartbeat?: (n: number) => number | undefined;
}

export function installScriptedCluster(opts: { topic: string; values: unknown[] }) {
  const names = Object.getOwnPropertyNames(Cluster.prototype);
  const original = Object.fromEntries(names.map((n) => [n, Object.getOwnPropertyDescriptor(Cluster.prototype, n)!]));
  const log = opts.values.map((v, i) => ({
    offset: String(i),
    key: Buffer.from(`k${i}`),
    value: Buffer.from(JSON.stringify(v)),
    timestamp: String(Date.now()),
    headers: {},
    isControlRecord: false,
    attributes: 0,
    magicByte: 2,
  }));
  const state: ScriptedBroker = { heartbeats: [], evictions: [], joins: 0, commits: [] };
  let generation = 0;
  let member: string | null = null;
  let sessionMs = 0;
  let lastSeen = 0;
  let committed = -1;
  const protocolError = (code: number) => new KafkaJSProtocolError(createErrorFromCode(code));
  const partitionMeta = [{ partitionId: 0, leader: 0, replicas: [0], isr: [0], partitionErrorCode: 0, offlineReplicas: [] }];

  const broker = {
    isConnected: () => true,
    connect: async () => undefined,
    disconnect: async () => undefined,
    createTopics: async () => true,
    joinGroup({
      memberId,
      sessionTimeout,
      groupProtocols,
    }: {
      memberId: string;
      sessionTimeout: number;
      groupProtocols: { name: string; metadata: Buffer }[];
    }) {
      state.joins++;
      generation++;
      member = memberId || `member-${state.joins}`;
      sessionMs = sessionTimeout;
      lastSeen = Date.now();
      return {
        generationId: generation,
        leaderId: member,
        memberId: member,
        members: [{ memberId: member, memberMetadata: groupProtocols[0]!.metadata }],
        groupProtocol: groupProtocols[0]!.name,
      };
    },
    syncGroup({ memberId, groupAssignment }: { memberId: string; groupAssignment: { memberId: string; memberAssignment: Buffer }[] }) {
      return { memberAssignment: groupAssignment.find((a) => a.memberId === memberId)?.memberAssignment ?? Buffer.alloc(0) };
    },
    heartbeat({ memberId, groupGenerationId }: { memberId: string; groupGenerationId: number }) {
      const now = Date.now();
      const gapMs = now - lastSeen;
      state.heartbeats.push({ at: now, generation: groupGenerationId, gapMs });
      if (memberId !== member) throw protocolError(KAFKA_ERROR.UNKNOWN_MEMBER_ID);
      if (gapMs > sessionMs) {
        // The coordinator would have evicted the member when its session ran out.
        state.evictions.push({ memberId, silentMs: gapMs });
        member = null;
        throw protocolError(KAFKA_ERROR.UNKNOWN_MEMBER_ID);
      }
      lastSeen = now;
      const code = state.failHeartbeat?.(state.heartbeats.length);
      if (code !== undefined) {
        if (code === KAFKA_ERROR.UNKNOWN_MEMBER_ID) member = null;
        throw protocolError(code);
      }
      return {};
    },
    leaveGroup: async () => ({}),
    offsetFetch: ({ topics }: { topics: { topic: string; partitions: { partition: number }[] }[] }) => ({
      responses: topics.map(({ topic, partitions }) => ({
        topic,
        partitions: partitions.map(({ partition }) => ({ partition, offset: String(committed), metadata: null, errorCode: 0 })),
      })),
    }),
    offsetCommit({ groupGenerationId, topics }: { groupGenerationId: number; topics: { partitions: { offset: string }[] }[] }) {
      for (const t of topics)
        for (const p of t.partitions) {
          state.commits.push({ generation: groupGenerationId, offset: p.offset });
          committed = Number(p.offset);
        }
      return { responses: [] };
    },
    async fetch({ maxWaitTime, topics }: { maxWaitTime: number; topics: { topic: string; partitions: { partition: number; fetchOffset: string }[] }[] }) {
      const from = Number(topics[0]!.partitions[0]!.fetchOffset);
      if (from >= log.length) await new Promise((r) => setTimeout(r, Math.min(maxWaitTime, 50)));
      return {
        responses: topics.map(({ topic, partitions }) => ({
          topicName: topic,
          partitions: partitions.map(({ partition }) => ({
            partition,
            errorCode: 0,
            highWatermark: String(log.length),
            lastStableOffset: String(log.length),
            abortedTransactions: [],
            messages: log.slice(from),
          })),
        })),
      };
    },
  };

  const scripted: Record<string, unknown> = {
    isConnected: () => true,
    connect: async () => undefined,
    disconnect: async () => undefined,
    removeBroker: () => undefined,
    refreshMetadata: async () => undefined,
    refreshMetadataIfNecessary: async () => undefined,
    addTargetTopic: async () => undefined,
    addMultipleTargetTopics: async () => undefined,
    metadata: async () => ({
      brokers: [{ nodeId: 0, host: 'scripted', port: 0 }],
      topicMetadata: [{ topic: opts.topic, partitionMetadata: partitionMeta, topicErrorCode: 0 }],
    }),
    getNodeIds: () => [0],
    findBroker: async () => broker,
    findControllerBroker: async () => broker,
    findGroupCoordinator: async () => broker,
    findTopicPartitionMetadata: (topic: string) => (topic === opts.topic ? partitionMeta : []),
    findLeaderForPartitions: (_topic: string, partitions: number[]) => ({ 0: partitions }),
    fetchTopicsOffset: async (topics: { topic: string; partitions: { partition: number }[] }[]) =>
      topics.map(({ topic, partitions }) => ({ topic, partitions: partitions.map(({ partition }) => ({ partition, offset: '0' })) })),
  };
  for (const [n, f] of Object.entries(scripted)) Object.defineProperty(Cluster.prototype, n, { value: f, configurable: true, writable: true });

  return {
    state,
    restore() {
      for (const n of Object.keys(scripted)) {
        const d = original[n];
        if (d) Object.defineProperty(Cluster.prototype, n, d);
        else delete Cluster.prototype[n];
      }
    },
  };
}
