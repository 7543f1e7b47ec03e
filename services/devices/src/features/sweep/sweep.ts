/**
 * The periodic sweep (runtime timer, or runtime.sweep() in tests): for every account it knows of,
 * evaluates the enabled alert rules against every device from silence (offline alerts open, stale
 * threshold alerts close), marks commands past their expiry expired, and deletes finished
 * commands older than the retention so the queue stays small. With push events, it also announces
 * device.offline for the devices whose silence reached the online window (announce-offline.ts:
 * only the due ones are read, never every device).
 */
import type { Logger } from '@pylon/kit';
import type { CommandRepository } from '../commands/command.repository.js';
import type { DeviceRepository } from '../../shared/device.repository.js';
import type { DeviceSilenceRepository } from './device-silence.repository.js';
import { announceOffline } from './announce-offline.js';
import type { DevicesSettings } from '../../domain/settings.js';
import { evaluateDeviceAlerts, type AlertEvaluationDeps } from '../alerts/evaluate-alerts.js';

export interface SweepReport {
  accounts: number;
  devices: number;
  opened: number;
  closed: number;
  expiredCommands: number;
  prunedCommands: number;
  /** device.offline announced. */
  offline: number;
}

export interface SweepDeps extends AlertEvaluationDeps {
  repo: DeviceRepository;
  commands: CommandRepository;
  settings: Pick<DevicesSettings, 'onlineWindowSeconds' | 'commandRetentionDays'>;
  logger: Logger;
  silence?: DeviceSilenceRepository;
}

export async function sweepOnce(deps: SweepDeps): Promise<SweepReport> {
  const report: SweepReport = { accounts: 0, devices: 0, opened: 0, closed: 0, expiredCommands: 0, prunedCommands: 0, offline: 0 };
  const now = deps.now();
  const nowIso = new Date(now).toISOString();
  for (const account of await deps.alerts.listAccounts()) {
    const tenant = account.id;
    report.accounts++;
    if (account.alertRules) {
      const rules = await deps.alerts.enabledRulesNow(tenant);
      if (rules.length) {
        const devices = await deps.repo.all(tenant);
        report.devices += devices.length;
        for (let i = 0; i < devices.length; i += 100) {
          const done = await Promise.all(devices.slice(i, i + 100).map((d) => evaluateDeviceAlerts(deps, d, rules, now)));
          for (const r of done) {
            report.opened += r.opened;
            report.closed += r.closed;
          }
        }
      }
    }
    if (account.commands) {
      const expired = await deps.commands.expireOverdue(tenant, nowIso);
      report.expiredCommands += expired.length;
      for (const c of expired)
        deps.pushEvents?.emit(tenant, 'command.expired', { device_id: c.deviceId, command_id: c.id, command: c.command, status: 'expired' }, now);
      const cutoff = new Date(now - deps.settings.commandRetentionDays * 86_400_000).toISOString();
      report.prunedCommands += await deps.commands.pruneFinishedBefore(tenant, cutoff);
    }
  }
  if (deps.silence && deps.pushEvents)
    report.offline = await announceOffline({ repo: deps.repo, silence: deps.silence, pushEvents: deps.pushEvents, settings: deps.settings, now: deps.now });
  if (report.opened || report.closed || report.expiredCommands || report.offline) deps.logger.info(report, 'device sweep');
  return report;
}
