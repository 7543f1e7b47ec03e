/** Query.alert / alertRules and the Alert / AlertRule types. */
import { isoSeconds, requirePolicy, type SubgraphContext } from '@pylon/kit';
import { isAlertActive, ruleSetOf, type AlertCondition } from '../domain/alert.js';
import type { Alert, AlertRule } from '../alert.repository.js';
import type { DevicesRuntime } from '../runtime.js';
import { listAlerts, type AlertQuery } from '../use-cases/alerts/manage-alerts.js';
import { deviceLoader, ruleLoader } from './loaders.js';

/** Domain values <-> SDL enum names. */
export const ENUMS = {
  AlertRuleMatch: { ANY: 'any', ALL: 'all' },
  AlertConditionType: { OFFLINE: 'offline', CPU_ABOVE: 'cpu_above', MEMORY_ABOVE: 'memory_above', DISK_ABOVE: 'disk_above' },
};

/** What an alert shows for a rule deleted since it opened: the snapshot it took. */
function ruleSnapshot(a: Alert): Omit<AlertRule, 'accountId' | 'version' | 'createdAt' | 'updatedAt'> & { createdAt?: string } {
  let parsed: { match?: 'any' | 'all'; conditions?: AlertCondition[] } = {};
  try {
    parsed = JSON.parse(a.ruleSet) as typeof parsed;
  } catch {
    /* an unreadable snapshot shows no conditions */
  }
  return { id: a.ruleId, name: a.ruleName, isEnabled: false, match: parsed.match ?? 'any', conditions: parsed.conditions ?? [] };
}

export function alertQueryResolvers(rt: DevicesRuntime) {
  return {
    alert: async (_: unknown, args: AlertQuery, ctx: SubgraphContext) => {
      requirePolicy(ctx.principal, 'Alerts_View');
      return listAlerts(rt, ctx.principal, args);
    },
    alertRules: async (_: unknown, __: unknown, ctx: SubgraphContext) => {
      requirePolicy(ctx.principal, 'Alerts_View');
      return rt.alerts.listRules(ctx.principal.accountId);
    },
  };
}

export function alertTypeResolvers(rt: DevicesRuntime) {
  return {
    Alert: {
      createdOn: (a: Alert) => isoSeconds(a.createdAt),
      updatedOn: (a: Alert) => isoSeconds(a.updatedAt),
      isActive: (a: Alert) => isAlertActive(a, rt.now()),
      snoozedUntil: (a: Alert) => isoSeconds(a.snoozedUntil),
      resolvedOn: (a: Alert) => isoSeconds(a.resolvedOn),
      autoResolved: (a: Alert) => a.autoResolved === true,
      alertRule: async (a: Alert, _: unknown, ctx: SubgraphContext) => (await ruleLoader(rt, ctx).load(a.ruleId)) ?? ruleSnapshot(a),
      // A device deleted since keeps its id and the name it had.
      devices: async (a: Alert, _: unknown, ctx: SubgraphContext) =>
        Promise.all(a.deviceIds.map(async (id, i) => (await deviceLoader(rt, ctx).load(id)) ?? { id, name: a.deviceNames[i] ?? id, tags: [], pingData: null, accountId: a.accountId })),
    },
    AlertRule: {
      ruleSet: (r: AlertRule) => ruleSetOf(r),
      createdOn: (r: AlertRule) => isoSeconds(r.createdAt),
      updatedOn: (r: AlertRule) => isoSeconds(r.updatedAt),
    },
    ...ENUMS,
  };
}
