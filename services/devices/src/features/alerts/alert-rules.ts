/** Alert rules of an account: create, update, delete; each change is applied to every device at once. */
import { AppError, type Principal } from '@pylon/kit';
import { parseAlertRule } from '../../domain/alert.js';
import type { AlertRule } from './alert.repository.js';
import type { DeviceRepository } from '../../shared/device.repository.js';
import { evaluateDeviceAlerts, releaseLatchesOf, type AlertEvaluationDeps } from './evaluate-alerts.js';

/** What managing rules needs: the alerts, the devices a rule applies to, the online window, the clock. */
export interface AlertRuleDeps extends AlertEvaluationDeps {
  repo: DeviceRepository;
}

async function getRule(deps: AlertRuleDeps, tenant: string, id: string): Promise<AlertRule> {
  const rule = await deps.alerts.findRule(tenant, id);
  if (!rule) throw new AppError('NOT_FOUND', `alert rule '${id.slice(0, 100)}' was not found`);
  return rule;
}

/** Re-reads the account's rules: the ping path's cache and the sweep's account list follow. */
async function rulesChanged(deps: AlertRuleDeps, tenant: string): Promise<void> {
  deps.alerts.invalidate(tenant);
  const enabled = await deps.alerts.countEnabledRules(tenant);
  await deps.alerts.registerAccount(tenant, { alertRules: enabled > 0 });
}

/** Evaluates one rule against every device of the account now (a new or changed rule needs no ping to apply). */
export async function applyRuleToFleet(deps: AlertRuleDeps, rule: AlertRule): Promise<void> {
  const tenant = rule.accountId;
  if (!rule.isEnabled) {
    await releaseLatchesOf(deps, tenant, { ruleId: rule.id });
    return;
  }
  const devices = await deps.repo.all(tenant);
  const now = deps.now();
  for (let i = 0; i < devices.length; i += 100) {
    await Promise.all(devices.slice(i, i + 100).map((d) => evaluateDeviceAlerts(deps, d, [rule], now)));
  }
}

export async function createAlertRule(deps: AlertRuleDeps, principal: Principal, input: unknown): Promise<AlertRule> {
  const tenant = principal.accountId;
  const rule = await deps.alerts.addRule(tenant, parseAlertRule(input));
  await rulesChanged(deps, tenant);
  await applyRuleToFleet(deps, rule);
  return rule;
}

/** Replaces a rule's definition. Open alerts of the rule stay open while the new definition still holds. */
export async function updateAlertRule(deps: AlertRuleDeps, principal: Principal, id: string, input: unknown): Promise<AlertRule> {
  const tenant = principal.accountId;
  const existing = await getRule(deps, tenant, id);
  const updated = await deps.alerts.replaceRule(tenant, existing.id, parseAlertRule(input));
  if (!updated) throw new AppError('NOT_FOUND', `alert rule '${id.slice(0, 100)}' was not found`);
  await rulesChanged(deps, tenant);
  await applyRuleToFleet(deps, updated);
  return updated;
}

/** Deletes a rule; its open alerts close (the history stays). */
export async function deleteAlertRule(deps: AlertRuleDeps, principal: Principal, id: string): Promise<{ ruleId: string }> {
  const tenant = principal.accountId;
  const rule = await getRule(deps, tenant, id);
  await deps.alerts.removeRule(tenant, rule.id);
  await releaseLatchesOf(deps, tenant, { ruleId: rule.id });
  await rulesChanged(deps, tenant);
  return { ruleId: rule.id };
}
