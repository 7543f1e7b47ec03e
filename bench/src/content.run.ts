/** Scenario 4 alone (`pnpm --filter @pylon/bench exec tsx src/content.run.ts`): the 200 MB upload against a local copy. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@pylon/kit';
import { startAllInOne } from '@pylon/gateway/all-in-one';
import { allInOneEnv } from '@pylon/gateway/config';
import { printUpload, uploadScenario } from './content.scenarios.js';

const KEY = 'bench-key-0123456789abcdef';
const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-content-'));
const env = loadConfig(allInOneEnv, {
  NODE_ENV: 'production',
  SIGNAGE_DATA_DIR: dir,
  PORT: '0',
  LEGACY_PORT: '0',
  LOG_LEVEL: 'silent',
  SIGNAGE_BOOTSTRAP_API_KEY: KEY,
  SIGNAGE_INTERNAL_SECRET: 's'.repeat(64),
  SIGNAGE_SIMULATOR: 'false',
  RATE_LIMIT_POINTS: '1000000000',
  SIGNAGE_DEMO_PASSWORD: 'bench-owner-password',
});
const app = await startAllInOne(env, { logger: createLogger({ level: 'silent' }) });
printUpload(await uploadScenario({ baseUrl: app.baseUrl, key: KEY, dir, sizeMb: Number(process.env.BENCH_UPLOAD_MB ?? 200) }));
await app.close();
await rm(dir, { recursive: true, force: true });
