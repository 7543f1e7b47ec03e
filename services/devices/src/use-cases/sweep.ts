/**
 * The periodic sweep (runtime timer, or runtime.sweep() in tests): for every account it knows of,
 * evaluates the enabled alert rules against every device from silence (offline alerts open, stale
 * threshold alerts close), marks commands past their expiry expired, and deletes finished
 * commands older than the retention so the queue stays small.
 */
import type { DevicesRuntime } from '../runtime.js';
import { evaluateDeviceAlerts } from './alerts/evaluate-alerts.js';

export interface SweepReport {
  accounts: number;
  devices: number;
  opened: number;
  closed: number;
  expiredCommands: number;
  prunedCommands: number;
}

export async function sweepOnce(rt: DevicesRuntime): Promise<SweepReport> {
  const report: SweepReport = { accounts: 0, devices: 0, opened: 0, closed: 0, expiredCommands: 0, prunedCommands: 0 };
  const now = rt.now();
  const nowIso = new Date(now).toISOString();
  for (const account of await rt.alerts.listAccounts()) {
    const tenant = account.id;
    report.accounts++;
    if (account.alertRules) {
      const rules = await rt.alerts.rules.find(tenant, { isEnabled: true }, {});
      if (rules.length) {
        const devices = await rt.repo.findDevices(tenant, {}, {});
        report.devices += devices.length;
        for (let i = 0; i < devices.length; i += 100) {
          const done = await Promise.all(devices.slice(i, i + 100).map((d) => evaluateDeviceAlerts(rt, d, rules, now)));
          for (const r of done) {
            report.opened += r.opened;
            report.closed += r.closed;
          }
        }
      }
    }
    if (account.commands) {
      const expired = await rt.commands.findExpired(tenant, nowIso);
      await rt.commands.setStatus(tenant, expired.map((c) => c.id), 'expired', { completedAt: nowIso });
      report.expiredCommands += expired.length;
      const cutoff = new Date(now - rt.settings.commandRetentionDays * 86_400_000).toISOString();
      const finished = await rt.commands.findFinishedBefore(tenant, cutoff);
      await Promise.all(finished.map((c) => rt.commands.commands.delete(tenant, c.id)));
      report.prunedCommands += finished.length;
    }
  }
  if (report.opened || report.closed || report.expiredCommands) rt.logger.info(report, 'device sweep');
  return report;
}
