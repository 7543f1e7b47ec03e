/** Opens and closes alerts for one device from its current state (after a ping, or in the sweep). */
import { evaluateRule } from '../../domain/alert.js';
import type { DevicesSettings } from '../../domain/settings.js';
import type { Alert, AlertRepository, AlertRule } from '../../alert.repository.js';
import type { Device } from '../../device.repository.js';

export interface EvaluationReport {
  opened: number;
  closed: number;
}

/** What evaluating alerts needs: the alert repository, the online window, the clock. */
export interface AlertEvaluationDeps {
  alerts: AlertRepository;
  settings: Pick<DevicesSettings, 'onlineWindowSeconds'>;
  now: () => number;
}

/**
 * For each rule: the condition holds and no alert holds the rule+device latch -> open one;
 * the condition cleared and an alert holds the latch -> close it (release the latch).
 * Concurrent evaluations of the same device (two replicas) cannot open two: the latch is unique.
 */
export async function evaluateDeviceAlerts(
  deps: AlertEvaluationDeps,
  device: Device,
  rules: readonly AlertRule[],
  now = deps.now(),
): Promise<EvaluationReport> {
  const report: EvaluationReport = { opened: 0, closed: 0 };
  const tenant = device.accountId;
  await Promise.all(
    rules.map(async (rule) => {
      if (!rule.isEnabled) return;
      const { holds, reason } = evaluateRule(rule, device, now, deps.settings.onlineWindowSeconds);
      const latched = await deps.alerts.findLatched(tenant, rule.id, device.id);
      if (holds && !latched) {
        if (await deps.alerts.openFor(device, rule, reason)) report.opened++;
      } else if (!holds && latched) {
        await releaseLatch(deps, tenant, latched, now);
        report.closed++;
      }
    }),
  );
  return report;
}

/** Releases an alert's latch; an alert nobody resolved yet is closed as auto-resolved. */
export async function releaseLatch(deps: Pick<AlertEvaluationDeps, 'alerts' | 'now'>, tenant: string, alert: Alert, now = deps.now()): Promise<void> {
  await deps.alerts.release(tenant, alert, new Date(now).toISOString());
}

/** Closes every alert still latched on one device (the device is deleted) or one rule (disabled or deleted). */
export async function releaseLatchesOf(
  deps: Pick<AlertEvaluationDeps, 'alerts' | 'now'>,
  tenant: string,
  of: { ruleId?: string; deviceId?: string },
): Promise<void> {
  for (const alert of await deps.alerts.findLatchedBy(tenant, of)) await releaseLatch(deps, tenant, alert);
}
