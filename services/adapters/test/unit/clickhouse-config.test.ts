/**
 * The ClickHouse server client waits for long statements (migrations' backfills, compaction's
 * OPTIMIZE ... FINAL run for minutes on real data) instead of giving up at the client's 30 s
 * default while the server goes on, and keeps the connection busy with progress headers on the
 * requests that can run that long, as the client's guide for long-running statements asks (checked
 * against @clickhouse/client 1.23's config.js: a long request_timeout without progress headers is
 * what it warns about). Which request carries them: clickhouse-errors.test.ts.
 */
import { createClient } from '@clickhouse/client';
import { clickHouseClientConfig, PROGRESS_SETTINGS, STATEMENT_SETTINGS } from '../../src/clickhouse/analytics.clickhouse.js';

test('long request timeout; progress headers for long requests; the analytics settings kept; credentials passed through', async () => {
  const config = clickHouseClientConfig({ url: 'http://clickhouse:8123', username: 'u', password: 'p', database: 'pylon' });
  expect(config.request_timeout).toBe(600_000);
  expect(config.clickhouse_settings).toMatchObject({ do_not_merge_across_partitions_select_final: 1, date_time_output_format: 'iso' });
  // Not on every request: a read capped at 60 s never needs one, and a request carrying them must read its body to the end.
  expect(config.clickhouse_settings).not.toHaveProperty('send_progress_in_http_headers');
  expect(PROGRESS_SETTINGS).toEqual({ send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '110000' });
  expect(STATEMENT_SETTINGS).toMatchObject({ ...PROGRESS_SETTINGS, wait_end_of_query: 1 });
  expect(config).toMatchObject({ username: 'u', password: 'p', database: 'pylon' });
  expect(clickHouseClientConfig({ url: 'http://x:8123', requestTimeoutMs: 5_000 }).request_timeout).toBe(5_000);
  // The client accepts it as it is (no connection is made until a request).
  const client = createClient(config);
  await client.close();
});
