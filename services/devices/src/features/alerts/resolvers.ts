/** GraphQL of alerts: the alerts and their count, alert rules, their writes, and the Alert / AlertRule types. */
import { byIdLoader, isoSeconds, mutationPayload, type SubgraphContext } from '@pylon/kit';
import { isAlertActive, ruleSetOf, type AlertCondition } from '../../domain/alert.js';
import type { DevicesRuntime } from '../../runtime.js';
import { deviceLoader } from '../../shared/loaders.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import type { RuleSnapshot } from '../../shared/sources.js';
import type { Alert, AlertRule } from './alert.repository.js';
import { createAlertRule, deleteAlertRule, updateAlertRule } from './alert-rules.js';
import { countAlerts, listAlerts, patchAlert, updateAlert } from './manage-alerts.js';

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

/** Per request: one read for every alert rule a response references. */
function ruleLoader(rt: DevicesRuntime, ctx: SubgraphContext) {
  return byIdLoader<AlertRule>(ctx, 'alertRules.byId', (tenant, ids) => rt.alerts.findRulesByIds(tenant, ids));
}

export function alertResolvers(rt: DevicesRuntime): Resolvers {
  return {
    Query: {
      alert: async (_, args, ctx) => listAlerts(rt, ctx.principal, args),
      alertCount: (_, args, ctx) => countAlerts(rt, ctx.principal, args),
      alertRules: async (_, args, ctx) => rt.alerts.listRules(ctx.principal.accountId, args),
    },
    Mutation: {
      updateAlert: (_, a, ctx) => mutationPayload(async () => ({ alert: await updateAlert(rt, ctx.principal, a.id, a.input) })),
      patchAlert: (_, a, ctx) => mutationPayload(async () => ({ alert: await patchAlert(rt, ctx.principal, a.id, a.operations) })),
      createAlertRule: (_, a, ctx) => mutationPayload(async () => ({ alertRule: await createAlertRule(rt, ctx.principal, a.input) })),
      updateAlertRule: (_, a, ctx) => mutationPayload(async () => ({ alertRule: await updateAlertRule(rt, ctx.principal, a.id, a.input) })),
      deleteAlertRule: (_, a, ctx) => mutationPayload(() => deleteAlertRule(rt, ctx.principal, a.id)),
    },
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
