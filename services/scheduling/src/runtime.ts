/**
 * What the scheduling subgraph and the player manifest share in one process: the repository, the
 * directory ports onto the other subgraphs, the clock and the change notifications.
 */
import type { Cache, DocumentStore, Logger } from '@pylon/kit';
import type { AccountDirectory } from './ports/account-directory.js';
import type { ContentDirectory } from './ports/content-directory.js';
import type { DeviceDirectory } from './ports/device-directory.js';
import { ScheduleRepository } from './schedule.repository.js';
import { manifestCacheKey } from './domain/manifest-cache.js';

/** Told when schedules change which devices' content (manifest versions follow). */
export interface ScheduleChanges {
  schedulesChanged(tenant: string, devicesBefore: readonly string[], devicesAfter: readonly string[]): Promise<void>;
}

export interface SchedulingRuntimeDeps {
  documents: DocumentStore;
  devices: DeviceDirectory;
  accounts: AccountDirectory;
  content: ContentDirectory;
  changes?: ScheduleChanges;
  /** Per-device manifest versions (Redis when scaled); none: computed on every ping. */
  cache?: Cache;
  logger?: Logger;
  now?: () => number;
}

export interface SchedulingRuntime {
  repo: ScheduleRepository;
  devices: DeviceDirectory;
  accounts: AccountDirectory;
  content: ContentDirectory;
  changes: ScheduleChanges;
  cache?: Cache;
  logger?: Logger;
  now: () => number;
}

export function createSchedulingRuntime(deps: SchedulingRuntimeDeps): SchedulingRuntime {
  return {
    repo: new ScheduleRepository(deps.documents),
    devices: deps.devices,
    accounts: deps.accounts,
    content: deps.content,
    // By default a schedule write drops the cached manifest versions of the devices it had and has.
    changes: deps.changes ?? {
      schedulesChanged: async (tenant, before, after) => {
        const cache = deps.cache;
        if (cache) await Promise.all([...new Set([...before, ...after])].map((id) => cache.del(manifestCacheKey(tenant, id)).catch(() => undefined)));
      },
    },
    ...(deps.cache ? { cache: deps.cache } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
    now: deps.now ?? Date.now,
  };
}
