/** Opens and closes alerts for one device from its current state (after a ping, or in the sweep). */
import { deviceRef, type AlertPayload, type DeviceRef, type PushEvents } from '@pylon/kit';
import { evaluateRule, hasOfflineCondition } from '../../domain/alert.js';
import type { DisplayPower, ManifestSource } from '../../ports/manifest-source.js';
import type { DevicesSettings } from '../../domain/settings.js';
import type { Alert, AlertRepository, AlertRule } from './alert.repository.js';
import type { Device } from '../../shared/device.repository.js';

export interface EvaluationReport {
  opened: number;
  closed: number;
}

/** What evaluating alerts needs: the alert repository, the online window, the clock. */
export interface AlertEvaluationDeps {
  alerts: AlertRepository;
  settings: Pick<DevicesSettings, 'onlineWindowSeconds'>;
  now: () => number;
  /** alert.opened / alert.resolved go out here. */
  pushEvents?: PushEvents;
  /** The displays' power schedules (scheduling): an offline condition holds only while the display should be on. */
  manifests?: Pick<ManifestSource, 'power'>;
}

/** An alert's push-event payload; the device's group and tags when the caller knows the device. */
export const alertPayload = (alert: Alert, device?: DeviceRef): AlertPayload => ({
  ...(device ?? { device_id: alert.deviceIds[0] ?? '' }),
  alert_id: alert.id,
  alert_rule_id: alert.ruleId,
  rule_name: alert.ruleName,
  reason: alert.reason,
  snoozed_until: alert.snoozedUntil ?? null,
  resolved_on: alert.resolvedOn ?? null,
});

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
  // Asked once per device, and only when an offline condition would hold (never on the ping path's healthy devices).
  let power: Promise<DisplayPower | undefined> | undefined;
  const powerOf = () =>
    (power ??= deps.manifests?.power
      ? deps.manifests.power({ accountId: tenant, id: device.id }).catch(() => undefined) // unknown: judged as before
      : Promise.resolve(undefined));
  await Promise.all(
    rules.map(async (rule) => {
      if (!rule.isEnabled) return;
      let { holds, reason } = evaluateRule(rule, device, now, deps.settings.onlineWindowSeconds);
      if (holds && hasOfflineCondition(rule)) ({ holds, reason } = evaluateRule(rule, device, now, deps.settings.onlineWindowSeconds, await powerOf()));
      const latched = await deps.alerts.findLatched(tenant, rule.id, device.id);
      if (holds && !latched) {
        const opened = await deps.alerts.openFor(device, rule, reason);
        if (opened) {
          report.opened++;
          deps.pushEvents?.emit(tenant, 'alert.opened', alertPayload(opened, deviceRef(device)), now);
        }
      } else if (!holds && latched) {
        await releaseLatch(deps, tenant, latched, now, deviceRef(device));
        report.closed++;
      }
    }),
  );
  return report;
}

/** Releases an alert's latch; an alert nobody resolved yet is closed as auto-resolved. */
export async function releaseLatch(
  deps: Pick<AlertEvaluationDeps, 'alerts' | 'now' | 'pushEvents'>,
  tenant: string,
  alert: Alert,
  now = deps.now(),
  device?: DeviceRef,
): Promise<void> {
  const at = new Date(now).toISOString();
  await deps.alerts.release(tenant, alert, at);
  // An alert a user resolved earlier was announced then.
  if (!alert.resolvedOn) deps.pushEvents?.emit(tenant, 'alert.resolved', alertPayload({ ...alert, resolvedOn: at }, device), now);
}

/** Closes every alert still latched on one device (the device is deleted) or one rule (disabled or deleted). */
export async function releaseLatchesOf(
  deps: Pick<AlertEvaluationDeps, 'alerts' | 'now' | 'pushEvents'>,
  tenant: string,
  of: { ruleId?: string; deviceId?: string },
): Promise<void> {
  for (const alert of await deps.alerts.findLatchedBy(tenant, of)) await releaseLatch(deps, tenant, alert);
}
