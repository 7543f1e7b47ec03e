/** Schedule domain: stored shapes and rules. Imports no driver and no GraphQL. */

/** GraphQL enum ScheduleType; stored as these values. */
export const SCHEDULE_TYPES = ['PLAYLIST', 'TEMPLATE', 'CAMPAIGN'] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

/**
 * GraphQL enum SchedulePriorityType -> the rank stored in `priority`. Stored as a number so that
 * sorting and comparing by priority follow its meaning, not the names' spelling.
 */
export const SCHEDULE_PRIORITIES = { LOWEST: 1, LOW: 2, NORMAL: 3, HIGH: 4, HIGHEST: 5 } as const;
export type SchedulePriority = keyof typeof SCHEDULE_PRIORITIES;
export type SchedulePriorityRank = (typeof SCHEDULE_PRIORITIES)[SchedulePriority];

export interface ScheduleRecord {
  name: string;
  type: ScheduleType;
  /** ISO 8601 instants; null: unbounded on that side. */
  startDate: string | null;
  endDate: string | null;
  /** HH:MM:SS in the device's local time; null: start / end of day. */
  startTime: string | null;
  endTime: string | null;
  monday: boolean;
  tuesday: boolean;
  wednesday: boolean;
  thursday: boolean;
  friday: boolean;
  saturday: boolean;
  sunday: boolean;
  priority: SchedulePriorityRank;
  templateId: string | null;
  playlistId: string | null;
  /** Devices the schedule applies to (ids in the devices subgraph). */
  deviceIds: string[];
  groupId: string | null;
  /** Denormalised from the group so filters and sorts need no join. */
  groupName: string | null;
  orgId: string | null;
  tags: string[];
}

export interface ScheduleGroupRecord {
  name: string;
  parentId: string | null;
}
