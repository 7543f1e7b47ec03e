/**
 * The audit sink of a process that serves an HTTP edge but runs no analytics ingest itself
 * (distributed gateway, REST facade, legacy adapter): a BufferedPublisher on TOPICS.audit over
 * Kafka, which the analytics process consumes. Without a shared stream (STREAM_DRIVER=memory)
 * there is no way to the analytics store from here, so the process says so once and records nothing.
 */
import { z } from 'zod';
import { join, resolve } from 'node:path';
import { kafkaOptions, kafkaEnv } from './backends.js';
import { auditReads, BufferedPublisher, createFileSpool, envBool, TOPICS, type AuditEventRecord, type AuditSink, type Logger } from '@pylon/kit';

export const auditSinkEnv = {
  // redis: the push events' shared stream (backends.ts); audit events still need Kafka from here.
  STREAM_DRIVER: z.enum(['memory', 'kafka', 'redis']).default('memory'),
  ...kafkaEnv,
  /** The process's writable data directory (the image: the /data volume); the spool's default home. */
  SIGNAGE_DATA_DIR: z.string().min(1).default('./data'),
  /**
   * Where audit events wait on disk while Kafka refuses them (never dropped). Default
   * SIGNAGE_DATA_DIR/spool: never under the working directory, which the image keeps read-only.
   */
  AUDIT_SPOOL_DIR: z.string().min(1).optional(),
  /** Record successful and failed reads (eventType Read); false: writes, authentication failures, rate limits and logins only. */
  AUDIT_READS: envBool(true),
};

/** The audit spool's directory: AUDIT_SPOOL_DIR, else the data dir's spool (the stream spool's, backends.ts). */
export const auditSpoolDir = (env: { SIGNAGE_DATA_DIR?: string | undefined; AUDIT_SPOOL_DIR?: string | undefined }): string =>
  resolve(env.AUDIT_SPOOL_DIR ?? join(env.SIGNAGE_DATA_DIR ?? './data', 'spool'));

export interface ProcessAuditSink {
  sink: AuditSink | undefined;
  close(): Promise<void>;
}

export async function createAuditSink(env: z.infer<z.ZodObject<typeof auditSinkEnv>>, clientId: string, logger: Logger): Promise<ProcessAuditSink> {
  if (env.STREAM_DRIVER !== 'kafka' || env.KAFKA_BROKERS.length === 0) {
    logger.warn('audit events of this process are not recorded: set STREAM_DRIVER=kafka and KAFKA_BROKERS to reach the analytics ingest');
    return { sink: undefined, close: async () => undefined };
  }
  const { createKafkaStream } = await import('@pylon/adapters/kafka');
  const stream = createKafkaStream(kafkaOptions(env, clientId, logger));
  const sink = new BufferedPublisher<AuditEventRecord>(stream, TOPICS.audit, { logger, spool: createFileSpool(auditSpoolDir(env)) });
  return {
    sink: auditReads(sink, env.AUDIT_READS ?? true),
    async close() {
      await sink.close();
      await stream.close();
    },
  };
}
