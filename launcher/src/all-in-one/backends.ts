/**
 * The all-in-one's stores. `npm start` starts opening them before it loads the rest of the code,
 * so the analytics migrations (tens of DDL statements on a new data dir) run on chDB's threads
 * meanwhile instead of after it. Every analytics call waits for them; `startAllInOne` starts the
 * telemetry consumer once they are done (`migrated`) and /readyz is not 200 before.
 */
import type { Logger } from '@pylon/kit';
import { createBackends, type Backends } from '@pylon/composition/backends';
import type { AllInOneEnv } from '../all-in-one.config.js';

export function openAllInOneBackends(env: AllInOneEnv, logger: Logger): Promise<Backends> {
  return createBackends(env, ['documents', 'analytics', 'cache', 'stream', 'blobs'], 'pylon', { logger, deferMigrations: true });
}
