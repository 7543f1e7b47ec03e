import type { CollectionSpec } from '@pylon/kit';

export const SCHEDULES: CollectionSpec = { name: 'schedules' };
export const SCHEDULE_GROUPS: CollectionSpec = { name: 'scheduleGroups' };
