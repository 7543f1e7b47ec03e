/** Query.alert / alertRules and the Alert / AlertRule types. */
import { isoSeconds } from '@pylon/kit';
import { isAlertActive, ruleSetOf, type AlertCondition } from '../domain/alert.js';
import type { Alert } from '../repositories/alert.repository.js';
import type { DevicesRuntime } from '../runtime.js';
import { countAlerts, listAlerts } from '../use-cases/alerts/manage-alerts.js';
import { deviceLoader, ruleLoader } from './loaders.js';
import type { QueryResolvers, Resolvers } from './resolvers.generated.js';
import type { RuleSnapshot } from './sources.js';

/** Domain values <-> SDL enum names. */
export const ENUMS = {
  AlertRuleMatch: { ANY: 'any', ALL: 'all' },
  AlertConditionType: { OFFLINE: 'offline', CPU_ABOVE: 'cpu_above', MEMORY_ABOVE: 'memory_above', DISK_ABOVE: 'disk_above' },
} as const;

function ruleSnapshot(a: Alert): RuleSnapshot {
  let parsed: { match?: 'any' | 'all'; conditions?: AlertCondition[] } = {};
  try {
    parsed = JSON.parse(a.ruleSet) as typeof parsed;
  } catch {
    /* an unreadable snapshot shows no conditions */
  }
  return { id: a.ruleId, name: a.ruleName, isEnabled: false, match: parsed.match ?? 'any', conditions: parsed.conditions ?? [] };
}

export function alertQueryResolvers(rt: DevicesRuntime): QueryResolvers {
  return {
    alert: async (_, args, ctx) => {
      return listAlerts(rt, ctx.principal, args);
    },
    alertCount: (_, args, ctx) => {
      return countAlerts(rt, ctx.principal, args);
    },
    alertRules: async (_, args, ctx) => {
      return rt.alerts.listRules(ctx.principal.accountId, args);
    },
  };
}

export function alertTypeResolvers(rt: DevicesRuntime): Pick<Resolvers, 'Alert' | 'AlertRule' | 'AlertRuleMatch' | 'AlertConditionType'> {
  return {
    Alert: {
      createdOn: (a) => isoSeconds(a.createdAt),
      updatedOn: (a) => isoSeconds(a.updatedAt),
      isActive: (a) => isAlertActive(a, rt.now()),
      snoozedUntil: (a) => isoSeconds(a.snoozedUntil),
      resolvedOn: (a) => isoSeconds(a.resolvedOn),
      autoResolved: (a) => a.autoResolved === true,
      alertRule: async (a, _, ctx) => (await ruleLoader(rt, ctx).load(a.ruleId)) ?? ruleSnapshot(a),
      // A device deleted since keeps its id and the name it had.
      devices: async (a, _, ctx) =>
        Promise.all(
          a.deviceIds.map(
            async (id, i) => (await deviceLoader(rt, ctx).load(id)) ?? { id, name: a.deviceNames[i] ?? id, tags: [], pingData: null, accountId: a.accountId },
          ),
        ),
    },
    AlertRule: {
      ruleSet: (r) => ruleSetOf(r),
      createdOn: (r) => isoSeconds(r.createdAt),
      updatedOn: (r) => isoSeconds(r.updatedAt),
    },
    ...ENUMS,
  };
}
