/** Opens and closes alerts for one device from its current state (after a ping, or in the sweep). */
import { evaluateRule, openKeyOf, ruleSetOf } from '../../domain/alert.js';
import type { Alert, AlertRule } from '../../alert.repository.js';
import type { Device } from '../../device.repository.js';
import type { DevicesRuntime } from '../../runtime.js';

export interface EvaluationReport {
  opened: number;
  closed: number;
}

const isDuplicate = (e: unknown) => (e as { code?: string } | null)?.code === 'DUPLICATE_KEY';

/**
 * For each rule: the condition holds and no alert holds the rule+device latch -> open one;
 * the condition cleared and an alert holds the latch -> close it (release the latch).
 * Concurrent evaluations of the same device (two replicas) cannot open two: the latch is unique.
 */
export async function evaluateDeviceAlerts(rt: DevicesRuntime, device: Device, rules: readonly AlertRule[], now = rt.now()): Promise<EvaluationReport> {
  const report: EvaluationReport = { opened: 0, closed: 0 };
  const tenant = device.accountId;
  await Promise.all(
    rules.map(async (rule) => {
      if (!rule.isEnabled) return;
      const { holds, reason } = evaluateRule(rule, device, now, rt.settings.onlineWindowSeconds);
      const latched = await rt.alerts.findLatched(tenant, rule.id, device.id);
      if (holds && !latched) {
        try {
          await rt.alerts.alerts.insert(tenant, {
            ruleId: rule.id,
            ruleName: rule.name,
            ruleSet: ruleSetOf(rule),
            deviceIds: [device.id],
            deviceNames: [device.name],
            orgId: device.orgId ?? null,
            openKey: openKeyOf(tenant, rule.id, device.id),
            reason,
            snoozedUntil: null,
            resolvedOn: null,
            autoResolved: false,
          });
          report.opened++;
        } catch (e) {
          if (!isDuplicate(e)) throw e; // another replica opened it first
        }
      } else if (!holds && latched) {
        await releaseLatch(rt, tenant, latched, now);
        report.closed++;
      }
    }),
  );
  return report;
}

/** Releases an alert's latch; an alert nobody resolved yet is closed as auto-resolved. */
export async function releaseLatch(rt: DevicesRuntime, tenant: string, alert: Alert, now = rt.now()): Promise<void> {
  await rt.alerts.alerts.update(tenant, alert.id, {
    $unset: ['openKey'],
    ...(alert.resolvedOn ? {} : { $set: { resolvedOn: new Date(now).toISOString(), autoResolved: true } }),
  });
}
