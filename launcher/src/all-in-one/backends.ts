/**
 * The all-in-one's stores. `npm start` starts opening them before it loads the rest of the code,
 * so the analytics migrations (tens of DDL statements on a new data dir) run on chDB's threads
 * meanwhile instead of after it; `startAllInOne` awaits them (`migrated`) before the telemetry
 * consumer starts and before the listeners, so /readyz is not 200 before they are done.
 */
import type { Logger } from '@pylon/kit';
import { createBackends, type Backends } from '@pylon/composition/backends';
import type { AllInOneEnv } from '../all-in-one.config.js';

export function openAllInOneBackends(env: AllInOneEnv, logger: Logger): Promise<Backends> {
  return createBackends(env, ['documents', 'analytics', 'cache', 'stream', 'blobs'], 'pylon', { logger, deferMigrations: true });
}
