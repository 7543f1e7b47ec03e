/**
 * Alerts: rules per account, evaluated per device from incoming pings and from silence.
 *
 * A rule holds for a device when its conditions match (`any` of them, or `all`):
 *   offline       - no ping for longer than `minutes` (a device that never pinged counts from its registration);
 *                   never while its display is off by its power schedule, and counted from the
 *                   start of the current on-window at the earliest (a screen switched on at 07:00
 *                   has until 07:00 + `minutes` to ping);
 *   cpu_above, memory_above, disk_above - the latest ping reported more than `threshold` percent,
 *                   judged only while that ping is fresh (within the online window): stale figures
 *                   of a silent device neither open nor keep open a threshold alert.
 *
 * An alert opens once per rule and device: it takes a latch (openKey, unique) that it keeps until
 * the condition clears. Clearing closes it (resolvedOn, autoResolved) and releases the latch.
 * A user may resolve an alert earlier; its latch is then still released only when the condition
 * clears, so resolving a still-true condition does not immediately raise it again.
 * Active = neither resolved nor snoozed; a snooze in the past no longer counts.
 */
import { z } from 'zod';
import { AppError } from '@pylon/kit';
import type { DeviceRecord, PingData } from './device.js';
import { parseInput } from './validation.js';

export const CONDITION_TYPES = ['offline', 'cpu_above', 'memory_above', 'disk_above'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

export interface AlertCondition {
  type: ConditionType;
  /** offline: minutes of silence. */
  minutes?: number | null;
  /** *_above: percent. */
  threshold?: number | null;
}

export interface AlertRuleRecord {
  name: string;
  isEnabled: boolean;
  match: 'any' | 'all';
  conditions: AlertCondition[];
}

export interface AlertRecord {
  ruleId: string;
  /** Snapshot of the rule when the alert opened (shown if the rule is deleted later). */
  ruleName: string;
  ruleSet: string;
  deviceIds: string[];
  deviceNames: string[];
  orgId: string | null;
  /** Present only while the alert holds its rule+device latch (see openKeyOf). */
  openKey?: string;
  /** Why it opened, e.g. "cpu 97% > 90%". */
  reason: string;
  snoozedUntil: string | null;
  resolvedOn: string | null;
  /** True when the service closed it because the condition cleared. */
  autoResolved: boolean;
}

export const openKeyOf = (accountId: string, ruleId: string, deviceId: string) => JSON.stringify([accountId, ruleId, deviceId]);

/** The ruleSet field: the rule's conditions as compact JSON text. */
export const ruleSetOf = (r: Pick<AlertRuleRecord, 'match' | 'conditions'>) =>
  JSON.stringify({
    match: r.match,
    conditions: r.conditions.map((c) => (c.type === 'offline' ? { type: c.type, minutes: c.minutes } : { type: c.type, threshold: c.threshold })),
  });

export const hasOfflineCondition = (r: Pick<AlertRuleRecord, 'conditions'>) => r.conditions.some((c) => c.type === 'offline');

export function isAlertActive(a: Pick<AlertRecord, 'resolvedOn' | 'snoozedUntil'>, now: number): boolean {
  if (a.resolvedOn) return false;
  return !(a.snoozedUntil && Date.parse(a.snoozedUntil) > now);
}

const METRIC: Record<Exclude<ConditionType, 'offline'>, { field: keyof PingData; label: string }> = {
  cpu_above: { field: 'cpuUsage', label: 'cpu' },
  memory_above: { field: 'memoryUsage', label: 'memory' },
  disk_above: { field: 'diskUsage', label: 'disk' },
};

export interface Evaluation {
  holds: boolean;
  /** The matching conditions, readable ("offline for 42 min > 30 min"). */
  reason: string;
}

export function evaluateRule(
  rule: Pick<AlertRuleRecord, 'match' | 'conditions'>,
  device: Pick<DeviceRecord, 'pingData'> & { createdAt: string },
  now: number,
  onlineWindowSeconds: number,
  power?: { on: boolean; since: number | null },
): Evaluation {
  const ping = device.pingData;
  const seen = Date.parse(ping?.timestamp ?? device.createdAt);
  const lastSeen = power?.since != null && power.since > seen ? power.since : seen;
  const fresh = !!ping && now - lastSeen <= onlineWindowSeconds * 1000;
  const reasons: string[] = [];
  const results = rule.conditions.map((c) => {
    if (c.type === 'offline') {
      const silentMs = now - lastSeen;
      const holds = power?.on !== false && Number.isFinite(silentMs) && silentMs > (c.minutes ?? 0) * 60_000;
      if (holds) reasons.push(`offline for ${Math.floor(silentMs / 60_000)} min > ${c.minutes} min`);
      return holds;
    }
    const m = METRIC[c.type];
    const value = fresh ? (ping[m.field] as number | null | undefined) : null;
    const holds = typeof value === 'number' && value > (c.threshold ?? 100);
    if (holds) reasons.push(`${m.label} ${round(value)}% > ${c.threshold}%`);
    return holds;
  });
  const holds = rule.match === 'all' ? results.every(Boolean) : results.some(Boolean);
  return { holds, reason: holds ? reasons.join(', ') : '' };
}

const round = (n: number) => Math.round(n * 10) / 10;

const conditionSchema = z
  .object({
    type: z.enum(CONDITION_TYPES),
    minutes: z.number().int().min(1).max(43_200).nullable().optional(),
    threshold: z.number().min(0).max(100).nullable().optional(),
  })
  .strict();

const ruleSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    isEnabled: z.boolean().optional().default(true),
    match: z.enum(['any', 'all']).optional().default('any'),
    conditions: z.array(conditionSchema).min(1).max(10),
  })
  .strict();

/** Validates a rule input; each condition must carry the parameter its type needs. */
export function parseAlertRule(input: unknown): AlertRuleRecord {
  const r = parseInput(ruleSchema, input);
  const conditions = r.conditions.map((c, i): AlertCondition => {
    if (c.type === 'offline') {
      if (c.minutes == null)
        throw new AppError('BAD_USER_INPUT', `conditions[${i}].minutes is required for an offline condition`, { field: `conditions[${i}].minutes` });
      return { type: c.type, minutes: c.minutes };
    }
    if (c.threshold == null)
      throw new AppError('BAD_USER_INPUT', `conditions[${i}].threshold is required for ${c.type}`, { field: `conditions[${i}].threshold` });
    return { type: c.type, threshold: c.threshold };
  });
  return { name: r.name, isEnabled: r.isEnabled, match: r.match, conditions };
}

/** Checks an ISO instant given for snoozedUntil / resolvedOn. */
export function parseAlertInstant(value: unknown, field: string): string | null {
  if (value === null) return null;
  if (
    typeof value !== 'string' ||
    value.length > 40 ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) ||
    Number.isNaN(Date.parse(value))
  ) {
    throw new AppError('BAD_USER_INPUT', `${field} must be an ISO 8601 timestamp such as 2026-01-31T18:00:00Z`, { field });
  }
  return new Date(value).toISOString();
}
