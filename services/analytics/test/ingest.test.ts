import { BufferedPublisher, createLogger, TOPICS, type AnalyticsStore, type AuditEventRecord, type PingLogRecord } from '@pylon/kit';
import { createScratchChdbStore } from '@pylon/adapters/chdb';
import { createMemoryStream } from '@pylon/adapters/memory';
import { startIngest } from '../src/workers/ingest.js';

let analytics: AnalyticsStore;
beforeAll(async () => {
  analytics = await createScratchChdbStore('pylon-ingest-');
  await analytics.migrate();
});
afterAll(() => analytics.close());

const waitFor = async (check: () => Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

test('buffered pings and audit events land in their tables; replayed ids collapse', async () => {
  const stream = createMemoryStream();
  const logger = createLogger({ level: 'silent' });
  const ingest = await startIngest({ stream, analytics, logger, maxWaitMs: 20 });
  const pings = new BufferedPublisher<PingLogRecord>(stream, TOPICS.pings, { maxBatch: 100, maxWaitMs: 10 });
  const audit = new BufferedPublisher<AuditEventRecord>(stream, TOPICS.audit, { maxWaitMs: 10 });
  for (let i = 0; i < 250; i++) {
    pings.push({
      id: `p${i % 200}`,
      account_id: 'acc',
      device_id: 'd1',
      timestamp: '2026-05-01T10:00:00.000Z',
      cpu_usage: i,
      memory_usage: 1,
      disk_usage: 2,
      player_version: '1',
      ip_address: '10.0.0.1',
      external_ip_address: '',
    });
  }
  audit.push({
    event_id: 'e1',
    account_id: 'acc',
    timestamp: new Date().toISOString(),
    event_type: 'api',
    user_id: 'u',
    user_name: 'user',
    http_method: 'GET',
    controller_name: 'devices',
    action_name: 'list',
    ip_address: '127.0.0.1',
    response_code: 200,
    interface: 'rest',
  });
  await pings.close();
  await audit.close();
  await waitFor(async () => (await analytics.query<{ c: number }>('SELECT count() AS c FROM audit_events'))[0]!.c === 1);
  await waitFor(async () => (await analytics.query<{ c: number }>('SELECT count() AS c FROM ping_logs FINAL'))[0]!.c === 200);
  await ingest.close();
  await stream.close();
});
