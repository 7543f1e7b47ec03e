/**
 * The audit sink of a process that serves an HTTP edge but runs no analytics ingest itself
 * (distributed gateway, REST facade, legacy adapter): a BufferedPublisher on TOPICS.audit over
 * Kafka, which the analytics process consumes. Without a shared stream (STREAM_DRIVER=memory)
 * there is no way to the analytics store from here, so the process says so once and records nothing.
 */
import { z } from 'zod';
import { auditReads, BufferedPublisher, envBool, envList, TOPICS, type AuditEventRecord, type AuditSink, type Logger } from '@pylon/kit';

export const auditSinkEnv = {
  STREAM_DRIVER: z.enum(['memory', 'kafka']).default('memory'),
  KAFKA_BROKERS: envList(),
  /** Record successful and failed reads (eventType Read); false: writes, authentication failures, rate limits and logins only. */
  AUDIT_READS: envBool(true),
};

export interface ProcessAuditSink {
  sink: AuditSink | undefined;
  close(): Promise<void>;
}

export async function createAuditSink(
  env: { STREAM_DRIVER: 'memory' | 'kafka'; KAFKA_BROKERS: string[]; AUDIT_READS?: boolean },
  clientId: string,
  logger: Logger,
): Promise<ProcessAuditSink> {
  if (env.STREAM_DRIVER !== 'kafka' || env.KAFKA_BROKERS.length === 0) {
    logger.warn('audit events of this process are not recorded: set STREAM_DRIVER=kafka and KAFKA_BROKERS to reach the analytics ingest');
    return { sink: undefined, close: async () => undefined };
  }
  const { createKafkaStream } = await import('@pylon/adapters/kafka');
  const stream = createKafkaStream({ brokers: env.KAFKA_BROKERS, clientId });
  const sink = new BufferedPublisher<AuditEventRecord>(stream, TOPICS.audit, { logger });
  return {
    sink: auditReads(sink, env.AUDIT_READS ?? true),
    async close() {
      await sink.close();
      await stream.close();
    },
  };
}
