/**
 * The ClickHouse server client waits for long statements (migrations' backfills, compaction's
 * OPTIMIZE ... FINAL run for minutes on real data) instead of giving up at the client's 30 s
 * default while the server goes on, and keeps the connection busy with progress headers, as the
 * client's guide for long-running statements asks (checked against @clickhouse/client 1.23's
 * config.js: a long request_timeout without progress headers is what it warns about).
 */
import { createClient } from '@clickhouse/client';
import { clickHouseClientConfig } from '../../src/clickhouse/analytics.clickhouse.js';

test('long request timeout with progress headers; the analytics settings kept; credentials passed through', async () => {
  const config = clickHouseClientConfig({ url: 'http://clickhouse:8123', username: 'u', password: 'p', database: 'pylon' });
  expect(config.request_timeout).toBe(600_000);
  expect(config.clickhouse_settings).toMatchObject({
    send_progress_in_http_headers: 1,
    http_headers_progress_interval_ms: '110000',
    do_not_merge_across_partitions_select_final: 1,
    date_time_output_format: 'iso',
  });
  expect(config).toMatchObject({ username: 'u', password: 'p', database: 'pylon' });
  expect(clickHouseClientConfig({ url: 'http://x:8123', requestTimeoutMs: 5_000 }).request_timeout).toBe(5_000);
  // The client accepts it as it is (no connection is made until a request).
  const client = createClient(config);
  await client.close();
});
