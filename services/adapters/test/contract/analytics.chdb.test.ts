import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChdbAnalyticsStore } from '../../src/chdb/analytics.chdb.js';
import type { AnalyticsStore } from '@pylon/kit/ports/analytics';
import { analyticsContract } from './analytics.contract.js';

// chDB binds one data directory per process and jest reuses workers across test files:
// every store opened here is closed in the contract's afterAll (cleanup).
analyticsContract('chdb', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pylon-analytics-'));
  let current: AnalyticsStore = await createChdbAnalyticsStore({ path: dir });
  return {
    store: current,
    async reopen() {
      await current.close();
      current = await createChdbAnalyticsStore({ path: dir });
      return current;
    },
    async cleanup() {
      await current.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
