/**
 * What the scheduling subgraph and the player manifest share in one process: the repository, the
 * directory ports onto the other subgraphs, the clock and the change notifications.
 */
import type { DocumentStore } from '@pylon/kit';
import type { AccountDirectory } from './ports/account-directory.js';
import type { ContentDirectory } from './ports/content-directory.js';
import type { DeviceDirectory } from './ports/device-directory.js';
import { ScheduleRepository } from './schedule.repository.js';

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
  now?: () => number;
}

export interface SchedulingRuntime {
  repo: ScheduleRepository;
  devices: DeviceDirectory;
  accounts: AccountDirectory;
  content: ContentDirectory;
  changes: ScheduleChanges;
  now: () => number;
}

export function createSchedulingRuntime(deps: SchedulingRuntimeDeps): SchedulingRuntime {
  return {
    repo: new ScheduleRepository(deps.documents),
    devices: deps.devices,
    accounts: deps.accounts,
    content: deps.content,
    changes: deps.changes ?? { schedulesChanged: async () => {} },
    now: deps.now ?? Date.now,
  };
}
