export { createSchedulingSubgraph, type SchedulingDeps } from './app.js';
export { ScheduleRepository } from './schedule.repository.js';
export { SCHEDULE_PRIORITIES, SCHEDULE_TYPES } from './domain/schedule.js';
export type { ScheduleRecord, ScheduleGroupRecord, SchedulePriority, ScheduleType } from './domain/schedule.js';
