/**
 * A player's ping: updates the device's ping data (so isOnline and pingData follow the last ping),
 * publishes a ping log for analytics, evaluates the account's alert rules, stores an inline
 * screenshot, and hands over the commands queued for the device. With `waitSeconds` the ping
 * long-polls: when nothing is queued it waits until a command arrives (from any replica) or time runs out.
 */
import { randomUUID } from 'node:crypto';
import { deviceRef } from '@pylon/kit';
import { commandsMayBePending, type PingData } from '../../domain/device.js';
import { parsePing } from '../../domain/ping.js';
import type { DevicesRuntime } from '../../runtime.js';
import type { Device } from '../../shared/device.repository.js';
import { evaluateDeviceAlerts } from '../alerts/evaluate-alerts.js';
import { deliverCommands, type DeliveredCommand } from '../commands/deliver-commands.js';
import { authenticatePlayer, badPlayerKey } from './player-auth.js';
import { decodeSnap, storeSnap } from './snaps.js';

export interface PingInput {
  registrationKey: string;
  body: unknown;
  /** The address the request came from (stored as externalIpAddress). */
  ip?: string | undefined;
  /** Long-poll: seconds to wait for a command when none is queued (capped by maxPingWaitSeconds). */
  waitSeconds?: number | undefined;
  /** Aborts the wait (client went away). */
  signal?: AbortSignal | undefined;
  /** Data tables the screen shows (menu boards): a change to one of them ends the wait too. */
  tableIds?: readonly string[] | undefined;
  /** Admission once the device is known (the player API's per-screen limit): throws to refuse. */
  admit?: ((device: Device) => Promise<void>) | undefined;
  /**
   * `?manifest=inline`: when the screen holds another manifest than the current one (`meta.manifest_version`),
   * the answer carries the current manifest itself, so an edit or an emergency override reaches the glass
   * one round trip sooner than through a GET of /manifest after the ping.
   */
  inlineManifest?: boolean | undefined;
}

export interface PingResult {
  device_id: string;
  /** The screen's name as the operator set it: the player's idle card shows it (renames follow on the next ping). */
  device_name: string;
  commands: DeliveredCommand[];
  server_time: string;
  /**
   * The device's current manifest version (GET /player/{key}/manifest): refetch the manifest when it
   * differs from the one held. Absent when manifests are not served; null when it could not be read now.
   */
  manifest_version?: string | null;
  /** With `?manifest=inline` and a manifest other than the held one: the body GET /player/{key}/manifest answers, and its ETag. */
  manifest?: unknown;
  manifest_etag?: string;
}

/**
 * A screen that says which manifest it holds (the web player sends `meta.manifest_version`) and holds
 * another than the current one is answered at once instead of waiting: a change announced while it
 * was between two pings (reading its last answer, refetching a manifest) woke nobody, and would
 * otherwise reach it only when this wait runs out (issue 39: edit-to-glass under a growing fleet).
 * Returns the current version read for that check (the answer reuses it), or undefined when none was read.
 */
async function oldManifestCheck(
  rt: RecordPingDeps,
  tenant: string,
  deviceId: string,
  meta: Record<string, string | null> | null | undefined,
): Promise<{ stale: boolean; version?: string | null }> {
  const held = meta?.manifest_version;
  if (!held || !rt.manifests) return { stale: false };
  const version = await rt.manifests.version({ accountId: tenant, id: deviceId }).catch(() => null);
  return { stale: version !== null && version !== held, version };
}

/** What a ping needs (everything but the sweep). */
export type RecordPingDeps = Pick<
  DevicesRuntime,
  'repo' | 'commands' | 'alerts' | 'wakeups' | 'settings' | 'now' | 'logger' | 'blobs' | 'pings' | 'manifests' | 'pushEvents' | 'silence'
>;

export async function recordPing(rt: RecordPingDeps, input: PingInput): Promise<PingResult> {
  const device = await authenticatePlayer(rt, input.registrationKey);
  await input.admit?.(device);
  const parsed = parsePing(input.body);
  const snap = parsed.snapBase64 ? decodeSnap(rt, parsed.snapBase64) : null;
  const tenant = device.accountId;
  const now = rt.now();
  const nowIso = new Date(now).toISOString();
  const wait = Math.min(Math.max(0, input.waitSeconds ?? 0), rt.settings.maxPingWaitSeconds);
  // Registered before the queue is read, so a command queued in between still wakes this ping.
  const waiter = wait > 0 ? await rt.wakeups.register(tenant, device.id, wait * 1000, input.signal, input.tableIds ?? []) : null;
  try {
    const current = waiter ? ((await rt.repo.findDevice(tenant, device.id)) ?? device) : device;
    const check = waiter !== null || commandsMayBePending(current);
    const pending = check ? await rt.commands.pendingFor(tenant, device.id) : [];
    const pingData: PingData = { ...parsed.data, externalIpAddress: input.ip ?? null, timestamp: nowIso };
    // Online again (or for the first time): the previous ping is older than the online window.
    const windowMs = rt.settings.onlineWindowSeconds * 1000;
    const previous = current.pingData?.timestamp ? Date.parse(current.pingData.timestamp) : NaN;
    const cameOnline = !(now - previous < windowMs);
    // Watched for silence (device.offline) before it is announced online, so a sweep deciding on the
    // old silence meanwhile cannot announce device.offline after this device.online; a device
    // online since before the due-time set existed is entered on its next ping (announce-offline.ts).
    const watched =
      rt.silence && (cameOnline || !current.silenceWatched)
        ? await rt.silence.watch(tenant, device.id, now + windowMs + 1).then(
            () => true,
            (e: unknown) => void rt.logger.warn({ err: e, deviceId: device.id }, 'device not watched for device.offline'),
          )
        : false;
    const updated = await rt.repo.recordPing(tenant, device.id, pingData, check ? nowIso : null, watched === true && !current.silenceWatched);
    if (!updated) throw badPlayerKey(); // deleted in between
    let commands = await deliverCommands(rt, tenant, pending, now, deviceRef(updated));
    if (rt.pushEvents && cameOnline) rt.pushEvents.emit(tenant, 'device.online', { ...deviceRef(updated), last_ping_at: nowIso }, now);

    rt.pings?.push({
      id: randomUUID(),
      account_id: tenant,
      device_id: device.id,
      timestamp: nowIso,
      cpu_usage: pingData.cpuUsage ?? 0,
      memory_usage: pingData.memoryUsage ?? 0,
      disk_usage: pingData.diskUsage ?? 0,
      player_version: pingData.playerVersion ?? '',
      ip_address: pingData.ipAddress ?? '',
      external_ip_address: pingData.externalIpAddress ?? '',
    });
    if (snap) await storeSnap(rt, updated, snap);
    try {
      const rules = await rt.alerts.enabledRules(tenant, now);
      if (rules.length) await evaluateDeviceAlerts(rt, updated, rules, now);
    } catch (e) {
      // Alerting must not cost the device its ping; the sweep evaluates again.
      rt.logger.error({ err: e, deviceId: device.id }, 'alert evaluation after a ping failed');
    }

    // The version read for the check answers the ping unless the ping then waits (a wake-up may change it).
    let known: string | null | undefined;
    if (commands.length === 0 && waiter) {
      const held = await oldManifestCheck(rt, tenant, device.id, parsed.data.meta);
      if (held.stale) known = held.version;
      else if (await waiter.promise) {
        commands = await deliverCommands(rt, tenant, await rt.commands.pendingFor(tenant, device.id), rt.now(), deviceRef(updated));
      }
    }
    const result: PingResult = { device_id: device.id, device_name: updated.name, commands, server_time: `${new Date(rt.now()).toISOString().slice(0, 19)}Z` };
    if (rt.manifests) {
      // A manifest that cannot be resolved now must not cost the device its ping (or its commands).
      result.manifest_version =
        known ??
        (await rt.manifests.version({ accountId: tenant, id: device.id }).catch((e: unknown) => {
          rt.logger.warn({ err: e, deviceId: device.id }, 'manifest version unavailable for a ping');
          return null;
        }));
      const held = parsed.data.meta?.manifest_version;
      if (input.inlineManifest && result.manifest_version && result.manifest_version !== held) {
        // The same answer the GET would give; one that cannot be read now leaves the screen to that GET.
        const answer = await rt.manifests.manifest({ accountId: tenant, id: device.id }).catch((e: unknown) => {
          rt.logger.warn({ err: e, deviceId: device.id }, 'manifest unavailable for a ping');
          return null;
        });
        if (answer) Object.assign(result, { manifest: answer.body, manifest_etag: answer.etag });
      }
    }
    return result;
  } finally {
    waiter?.cancel();
  }
}
