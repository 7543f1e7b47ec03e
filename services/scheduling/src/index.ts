export { createSchedulingSubgraph, type SchedulingDeps, type SchedulingSubgraph } from './app.js';
export { ScheduleRepository } from './schedule.repository.js';
export { SCHEDULE_PRIORITIES, SCHEDULE_TYPES } from './domain/schedule.js';
export type { ScheduleRecord, ScheduleGroupRecord, SchedulePriority, ScheduleType } from './domain/schedule.js';
export type { DeviceDirectory, DeviceFacts } from './ports/device-directory.js';
export type { AccountDirectory } from './ports/account-directory.js';
export type { ContentDirectory, ContentKind } from './ports/content-directory.js';
export type { SchedulingRuntime } from './runtime.js';
