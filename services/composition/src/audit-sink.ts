/**
 * The audit sink of a process that serves an HTTP edge but runs no analytics ingest itself
 * (distributed gateway, REST facade, legacy adapter): a BufferedPublisher on TOPICS.audit over the
 * shared stream the analytics process consumes (Kafka, or Redis Streams with the same key prefix).
 * Without a shared stream (STREAM_DRIVER=memory) there is no way to the analytics store from here,
 * so the process says so once and records nothing.
 */
import { z } from 'zod';
import { resolve } from 'node:path';
import { kafkaOptions, kafkaEnv, redisStreamEnv, redisStreamOptions, spoolDir } from './backends.js';
import {
  auditReads,
  BufferedPublisher,
  createFileSpool,
  envBool,
  TOPICS,
  type AuditEventRecord,
  type AuditSink,
  type EventStream,
  type Logger,
} from '@pylon/kit';

export const auditSinkEnv = {
  STREAM_DRIVER: z.enum(['memory', 'kafka', 'redis']).default('memory'),
  ...kafkaEnv,
  REDIS_URL: z.string().url().optional(),
  // The analytics ingest's key prefix and publish durability: the audit topic must be the stream it reads.
  ...redisStreamEnv,
  /** The process's writable data directory (the image: the /data volume); the spool's default home. */
  SIGNAGE_DATA_DIR: z.string().min(1).default('./data'),
  /**
   * Where audit events wait on disk while the stream refuses them (never dropped). Default
   * SIGNAGE_DATA_DIR/spool: never under the working directory, which the image keeps read-only.
   */
  AUDIT_SPOOL_DIR: z.string().min(1).optional(),
  /** Record successful and failed reads (eventType Read); false: writes, authentication failures, rate limits and logins only. */
  AUDIT_READS: envBool(true),
};

/** The audit spool's directory: AUDIT_SPOOL_DIR, else the data dir's spool (the stream spool's, backends.ts). */
export const auditSpoolDir = (env: { SIGNAGE_DATA_DIR?: string | undefined; AUDIT_SPOOL_DIR?: string | undefined }): string =>
  resolve(env.AUDIT_SPOOL_DIR ?? spoolDir(env.SIGNAGE_DATA_DIR ?? './data'));

export interface ProcessAuditSink {
  sink: AuditSink | undefined;
  close(): Promise<void>;
}

export async function createAuditSink(env: z.infer<z.ZodObject<typeof auditSinkEnv>>, clientId: string, logger: Logger): Promise<ProcessAuditSink> {
  let stream: EventStream;
  if (env.STREAM_DRIVER === 'kafka' && env.KAFKA_BROKERS.length > 0) {
    const { createKafkaStream } = await import('@pylon/adapters/kafka');
    stream = createKafkaStream(kafkaOptions(env, clientId, logger));
  } else if (env.STREAM_DRIVER === 'redis' && env.REDIS_URL) {
    const { createRedisStream } = await import('@pylon/adapters/redis');
    stream = createRedisStream(redisStreamOptions(env, logger));
  } else {
    logger.warn(
      'audit events of this process are not recorded: set STREAM_DRIVER=kafka and KAFKA_BROKERS (or STREAM_DRIVER=redis and REDIS_URL) to reach the analytics ingest',
    );
    return { sink: undefined, close: async () => undefined };
  }
  const sink = new BufferedPublisher<AuditEventRecord>(stream, TOPICS.audit, { logger, spool: createFileSpool(auditSpoolDir(env)) });
  return {
    sink: auditReads(sink, env.AUDIT_READS ?? true),
    async close() {
      await sink.close();
      await stream.close();
    },
  };
}
