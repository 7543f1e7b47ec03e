/** Reading alerts, and snoozing / resolving them (GraphQL alert, updateAlert, patchAlert; REST /alerts). */
import { AppError, applyJsonPatch, type Principal, type PushEvents } from '@pylon/kit';
import { parseAlertInstant } from '../../domain/alert.js';
import type { Alert, AlertRepository, AlertSearch } from './alert.repository.js';
import { alertPayload } from './evaluate-alerts.js';

/** What reading and changing alerts needs: the alerts and the clock. */
export interface ManageAlertsDeps {
  alerts: AlertRepository;
  now: () => number;
  /** alert.snoozed / alert.resolved go out here. */
  pushEvents?: PushEvents;
}

export type AlertQuery = AlertSearch;

/**
 * The caller's alerts, newest first unless `order` says otherwise. Active = neither resolved nor
 * snoozed (a past snooze no longer counts). where / order / limit / offset are checked by the
 * listing (unknown fields and limits out of range are BAD_USER_INPUT naming the argument).
 */
export async function listAlerts(deps: ManageAlertsDeps, principal: Principal, q: AlertQuery): Promise<Alert[]> {
  return deps.alerts.search(principal.accountId, q, new Date(deps.now()).toISOString());
}

/** How many alerts listAlerts would return with the same filters (no limit, no offset): exact, the caller's account only. */
export function countAlerts(deps: ManageAlertsDeps, principal: Principal, q: AlertQuery): Promise<number> {
  return deps.alerts.count(principal.accountId, q, new Date(deps.now()).toISOString());
}

export interface AlertChanges {
  snoozedUntil?: string | null;
  resolvedOn?: string | null;
}

/**
 * Snoozes (snoozedUntil; null lifts the snooze) or resolves (resolvedOn, not in the future) an alert.
 * A resolved alert stays resolved: it cannot be reopened or snoozed; resolving it again changes nothing.
 */
export async function updateAlert(deps: ManageAlertsDeps, principal: Principal, id: string, input: AlertChanges): Promise<Alert> {
  const tenant = principal.accountId;
  const alert = await deps.alerts.findAlert(tenant, id);
  if (!alert) throw new AppError('NOT_FOUND', `alert '${id.slice(0, 100)}' was not found`);
  const set: AlertChanges = {};
  if (input.snoozedUntil !== undefined) {
    const until = parseAlertInstant(input.snoozedUntil, 'snoozedUntil');
    if (alert.resolvedOn && until !== null)
      throw new AppError('UNPROCESSABLE', 'the alert is resolved; a resolved alert cannot be snoozed', { field: 'snoozedUntil' });
    set.snoozedUntil = until;
  }
  if (input.resolvedOn !== undefined) {
    const on = parseAlertInstant(input.resolvedOn, 'resolvedOn');
    if (on === null) {
      if (alert.resolvedOn) throw new AppError('UNPROCESSABLE', 'a resolved alert cannot be reopened', { field: 'resolvedOn' });
    } else if (Date.parse(on) > deps.now() + 60_000) {
      throw new AppError('BAD_USER_INPUT', 'resolvedOn cannot be in the future', { field: 'resolvedOn' });
    } else if (!alert.resolvedOn) {
      set.resolvedOn = on;
    }
  }
  if (Object.keys(set).length === 0) return alert;
  const updated = await deps.alerts.changeState(tenant, alert.id, set);
  if (!updated) throw new AppError('NOT_FOUND', `alert '${id.slice(0, 100)}' was not found`);
  if (set.resolvedOn) deps.pushEvents?.emit(tenant, 'alert.resolved', alertPayload(updated));
  else if (set.snoozedUntil) deps.pushEvents?.emit(tenant, 'alert.snoozed', alertPayload(updated));
  return updated;
}

const PATCH_RULES = {
  writable: new Set(['snoozedUntil', 'resolvedOn']),
  readOnly: new Set(['id', 'createdOn', 'createdAt', 'updatedAt', 'accountId', 'version', 'isActive', 'alertRule', 'devices', 'reason', 'ruleId']),
};

/** JSON Patch over { snoozedUntil, resolvedOn } (remove = null). */
export async function patchAlert(deps: ManageAlertsDeps, principal: Principal, id: string, operations: unknown): Promise<Alert> {
  const alert = await deps.alerts.findAlert(principal.accountId, id);
  if (!alert) throw new AppError('NOT_FOUND', `alert '${id.slice(0, 100)}' was not found`);
  const before = { snoozedUntil: alert.snoozedUntil, resolvedOn: alert.resolvedOn };
  const after = applyJsonPatch(before, operations, PATCH_RULES);
  const changes: AlertChanges = {};
  for (const key of ['snoozedUntil', 'resolvedOn'] as const) {
    const value = after[key] === undefined ? null : after[key];
    if (value !== before[key]) changes[key] = value as string | null;
  }
  for (const key of Object.keys(after)) if (!PATCH_RULES.writable.has(key)) throw new AppError('BAD_USER_INPUT', `unknown field '${key}'`, { field: key });
  return updateAlert(deps, principal, alert.id, changes);
}
