/** Alert rules of an account: create, update, delete; each change is applied to every device at once. */
import { AppError, type Principal } from '@pylon/kit';
import { parseAlertRule } from '../../domain/alert.js';
import type { AlertRule } from '../../alert.repository.js';
import type { DevicesRuntime } from '../../runtime.js';
import { evaluateDeviceAlerts, releaseLatch } from './evaluate-alerts.js';

async function getRule(rt: DevicesRuntime, tenant: string, id: string): Promise<AlertRule> {
  const rule = await rt.alerts.rules.findById(tenant, id);
  if (!rule) throw new AppError('NOT_FOUND', `alert rule '${id.slice(0, 100)}' was not found`);
  return rule;
}

/** Re-reads the account's rules: the ping path's cache and the sweep's account list follow. */
async function rulesChanged(rt: DevicesRuntime, tenant: string): Promise<void> {
  rt.alerts.invalidate(tenant);
  const enabled = await rt.alerts.rules.count(tenant, { isEnabled: true });
  await rt.alerts.registerAccount(tenant, { alertRules: enabled > 0 });
}

/** Evaluates one rule against every device of the account now (a new or changed rule needs no ping to apply). */
export async function applyRuleToFleet(rt: DevicesRuntime, rule: AlertRule): Promise<void> {
  const tenant = rule.accountId;
  if (!rule.isEnabled) {
    for (const alert of await rt.alerts.findLatchedBy(tenant, { ruleId: rule.id })) await releaseLatch(rt, tenant, alert);
    return;
  }
  const devices = await rt.repo.findDevices(tenant, {}, {});
  const now = rt.now();
  for (let i = 0; i < devices.length; i += 100) {
    await Promise.all(devices.slice(i, i + 100).map((d) => evaluateDeviceAlerts(rt, d, [rule], now)));
  }
}

export async function createAlertRule(rt: DevicesRuntime, principal: Principal, input: unknown): Promise<AlertRule> {
  const tenant = principal.accountId;
  const rule = await rt.alerts.rules.insert(tenant, parseAlertRule(input));
  await rulesChanged(rt, tenant);
  await applyRuleToFleet(rt, rule);
  return rule;
}

/** Replaces a rule's definition. Open alerts of the rule stay open while the new definition still holds. */
export async function updateAlertRule(rt: DevicesRuntime, principal: Principal, id: string, input: unknown): Promise<AlertRule> {
  const tenant = principal.accountId;
  const existing = await getRule(rt, tenant, id);
  const updated = await rt.alerts.rules.update(tenant, existing.id, { $set: { ...parseAlertRule(input) } });
  if (!updated) throw new AppError('NOT_FOUND', `alert rule '${id.slice(0, 100)}' was not found`);
  await rulesChanged(rt, tenant);
  await applyRuleToFleet(rt, updated);
  return updated;
}

/** Deletes a rule; its open alerts close (the history stays). */
export async function deleteAlertRule(rt: DevicesRuntime, principal: Principal, id: string): Promise<{ ruleId: string }> {
  const tenant = principal.accountId;
  const rule = await getRule(rt, tenant, id);
  await rt.alerts.rules.delete(tenant, rule.id);
  for (const alert of await rt.alerts.findLatchedBy(tenant, { ruleId: rule.id })) await releaseLatch(rt, tenant, alert);
  await rulesChanged(rt, tenant);
  return { ruleId: rule.id };
}
