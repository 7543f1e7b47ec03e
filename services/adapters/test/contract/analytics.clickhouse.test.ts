import { randomBytes } from 'node:crypto';
import { createClient } from '@clickhouse/client';
import { createClickHouseAnalyticsStore } from '../../src/clickhouse/analytics.clickhouse.js';
import type { AnalyticsStore } from '@pylon/kit/ports/analytics';
import { analyticsContract } from '../../src/contract/analytics.contract.js';

const url = process.env.CLICKHOUSE_URL;

if (!url) {
  const why = 'analytics.clickhouse: skipped, CLICKHOUSE_URL is not set';
  console.log(why);
  // Jest's default reporter drops console output of a file whose tests were all skipped
  // (it shows only with --verbose), so say it on stderr as well.
  process.stderr.write(`${why}\n`);
  test.skip('analytics.clickhouse (CLICKHOUSE_URL is not set)', () => {});
} else {
  const username = process.env.CLICKHOUSE_USERNAME;
  const password = process.env.CLICKHOUSE_PASSWORD;
  analyticsContract('clickhouse', async () => {
    // A database of its own per run, dropped afterwards.
    const database = `pylon_test_${Date.now()}_${randomBytes(4).toString('hex')}`;
    const admin = createClient({
      url,
      ...(username !== undefined ? { username } : {}),
      ...(password !== undefined ? { password } : {}),
    });
    await admin.command({ query: `CREATE DATABASE ${database}` });
    const open = () => createClickHouseAnalyticsStore({ url, username, password, database });
    let current: AnalyticsStore = await open();
    return {
      store: current,
      async reopen() {
        await current.close();
        current = await open();
        return current;
      },
      async cleanup() {
        await current.close();
        try {
          await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
        } finally {
          await admin.close();
        }
      },
    };
  });
}
