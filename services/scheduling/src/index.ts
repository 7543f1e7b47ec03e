export { createSchedulingSubgraph, type SchedulingDeps, type SchedulingSubgraph } from './app.js';
export { ScheduleRepository } from './shared/schedule.repository.js';
export { SCHEDULE_PRIORITIES, SCHEDULE_TYPES } from './domain/schedule.js';
export type { ScheduleRecord, ScheduleGroupRecord, SchedulePriority, ScheduleType } from './domain/schedule.js';
export type { DeviceDirectory, DeviceFacts } from './ports/device-directory.js';
export type { AccountDirectory } from './ports/account-directory.js';
export type { ContentDirectory, ContentKind } from './ports/content-directory.js';
export type { SchedulingRuntime } from './runtime.js';
export type { ManifestMedia, ManifestPlaylist, ManifestTemplate } from './ports/content-directory.js';
export {
  currentManifest,
  manifestVersion,
  playerManifest,
  playerPrincipal,
  type DeviceRef,
  type ManifestAnswer,
  type PlayerManifest,
} from './features/player-manifest/player-manifest.js';
export { watchChanges } from './features/player-manifest/manifest-changes.js';
export { createSchedule } from './features/schedules/manage-schedules.js';
export { acknowledgeOverride, cancelOverride, getOverride, startOverride } from './features/overrides/manage-overrides.js';
export { pollCapFeed, pollDueFeeds, startCapPolling } from './features/cap-feeds/poll-cap-feed.js';
export { assignScheduleDevices, checkSchedule } from './features/schedules/assign-devices.js';
export { sendDueEdges, startPowerEdges, POWER_EDGE_TICK_MS } from './features/power/power-edges.js';
export { devicePower, offWindows } from './features/power/manage-power.js';
