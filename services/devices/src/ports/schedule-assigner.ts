import type { Principal } from '@pylon/kit';

/**
 * Assigning a schedule to devices (bulk jobs). Schedules belong to the scheduling service: a
 * schedule lists its devices (`deviceIds`, at most scheduling's MAX_SCHEDULE_DEVICES), so assigning
 * one adds devices to that list. In-process in the all-in-one (scheduling's use case, as the caller,
 * with its checks and manifest invalidation); over the scheduling process's internal routes in a
 * distributed devices process (adapters/schedule-assigner.http.ts). Absent: refused (UNAVAILABLE).
 */
export interface ScheduleAssigner {
  /** Throws NOT_FOUND (AppError) unless the schedule is one of the caller's account's. */
  check(caller: Principal, scheduleId: string): Promise<void>;
  /**
   * Adds the devices to the schedule's list (or removes them); answers the devices it could not
   * take, each with the reason (e.g. the list is full). Devices of another account are refused
   * by scheduling's own check.
   */
  assign(caller: Principal, scheduleId: string, deviceIds: readonly string[], mode: 'add' | 'remove'): Promise<Map<string, { error: string; code: string }>>;
}
