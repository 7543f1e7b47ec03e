/** Stored schedule -> what the resolution engine reads. */
import type { Plan } from './resolution.js';
import type { ScheduleRecord } from './schedule.js';
import { WEEKDAYS, secondsOf } from './schedule-input.js';
import { dayOfDate } from './zone-clock.js';

export interface SchedulePlan<S> extends Plan {
  schedule: S;
}

export function planOf<S extends ScheduleRecord & { id: string; updatedAt: string }>(schedule: S, hasContent: boolean): SchedulePlan<S> {
  return {
    schedule,
    id: schedule.id,
    priority: schedule.priority,
    modifiedAt: Date.parse(schedule.updatedAt),
    startDay: schedule.startDate ? dayOfDate(schedule.startDate) : null,
    endDay: schedule.endDate ? dayOfDate(schedule.endDate) : null,
    startSecond: schedule.startTime ? secondsOf(schedule.startTime) : 0,
    endSecond: schedule.endTime ? secondsOf(schedule.endTime) : 86_400,
    weekdays: WEEKDAYS.map((d) => schedule[d] === true),
    hasContent,
  };
}
