/**
 * Audit events of an edge process (gateway, REST facade, legacy adapter) with STREAM_DRIVER=redis
 * reach the Redis stream the analytics ingest reads (same topic, same key prefix). Before, the
 * sink recorded nothing unless the stream was Kafka. Runs against a real Redis: REDIS_URL; skipped
 * when it is unset, like the other Redis tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createLogger, loadConfig, recordsOf, TOPICS, type AuditEventRecord, type StreamMessage } from '@pylon/kit';
import { createRedisStream } from '@pylon/adapters/redis';
import { createAuditSink } from '../src/audit-sink.js';
import { facadeProcessEnv } from '../src/facade-process.js';

const REDIS_URL = process.env.REDIS_URL;
const redisTest = REDIS_URL ? test : test.skip;
if (!REDIS_URL) console.warn('audit-sink.redis.test: REDIS_URL is unset; the Redis case is skipped');

const event = (i: number): AuditEventRecord => ({
  event_id: randomUUID(),
  account_id: 'acc-audit',
  timestamp: new Date().toISOString(),
  event_type: i % 2 ? 'Read' : 'Write',
  user_id: 'u1',
  user_name: 'owner@example.com',
  http_method: i % 2 ? 'GET' : 'POST',
  controller_name: 'devices',
  action_name: 'list',
  ip_address: '127.0.0.1',
  response_code: 200,
  interface: 'rest',
});

redisTest(
  'STREAM_DRIVER=redis: the audit events of a facade process arrive on the Redis stream the ingest reads, each once',
  async () => {
    const spool = mkdtempSync(join(tmpdir(), 'pylon-audit-spool-'));
    const prefix = `pylon-test-audit-${randomUUID().slice(0, 8)}:`;
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: { write: (s: string) => lines.push(s) } as unknown as NodeJS.WritableStream });
    const env = loadConfig(facadeProcessEnv(4001), {
      GATEWAY_URL: 'http://gateway:4000',
      STREAM_DRIVER: 'redis',
      REDIS_URL: REDIS_URL!,
      REDIS_STREAM_PREFIX: prefix,
      AUDIT_SPOOL_DIR: spool,
    });
    const audit = await createAuditSink(env, 'pylon-rest-facade', logger);
    // The ingest's side: a group on the audit topic under the same prefix.
    const reader = createRedisStream({ url: REDIS_URL!, keyPrefix: prefix, retentionIntervalMs: 0 });
    const got: AuditEventRecord[] = [];
    try {
      expect(audit.sink).toBeDefined();
      await reader.subscribe(TOPICS.audit, { group: 'analytics-ingest', maxWaitMs: 50 }, async (batch: StreamMessage[]) => {
        for (const m of batch) got.push(...(recordsOf(m.value) as AuditEventRecord[]));
      });
      const sent = Array.from({ length: 25 }, (_, i) => event(i));
      for (const e of sent) audit.sink!.push(e);
      await audit.close(); // flushes to Redis
      const deadline = Date.now() + 30_000;
      while (got.length < sent.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(got.map((e) => e.event_id).sort()).toEqual(sent.map((e) => e.event_id).sort());
      expect(lines.join('')).not.toMatch(/not recorded/);
    } finally {
      await reader.close();
      rmSync(spool, { recursive: true, force: true });
    }
  },
  60_000,
);
