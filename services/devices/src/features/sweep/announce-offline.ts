/**
 * device.offline: a device that stops pinging for the online window (DEVICE_ONLINE_WINDOW_SECONDS,
 * the same rule as `isOnline`) is announced once; its next ping announces device.online.
 *
 *   ping (offline -> online) --watch(now + window)--> [due-time set] --sweep at due-->
 *     pinged since?  yes: postpone to last ping + window
 *                    no:  remove the entry, emit device.offline (until the next device.online)
 *
 * The sweep reads only the due entries (an index walk that stops past now), so a tick costs the
 * devices whose window ended, not the fleet. Replicas race on an entry's version: the one whose
 * removal or move succeeds acts, so each silence is announced once. A ping that comes back while
 * the sweep decides moves the entry (its watch precedes its device.online): the sweep's removal
 * then fails and no device.offline goes out after the device.online.
 */
import { deviceRef, type PushEvents } from '@pylon/kit';
import type { DeviceRepository } from '../../shared/device.repository.js';
import type { DeviceSilenceRepository } from './device-silence.repository.js';
import type { DevicesSettings } from '../../domain/settings.js';

/** Entries handled per sweep at most (the rest are due on the next one). */
export const OFFLINE_BATCH = 2_000;

export interface AnnounceOfflineDeps {
  repo: DeviceRepository;
  silence: DeviceSilenceRepository;
  pushEvents: PushEvents;
  settings: Pick<DevicesSettings, 'onlineWindowSeconds'>;
  now: () => number;
}

/** Announces the devices whose silence reached the window; returns how many went offline. */
export async function announceOffline(deps: AnnounceOfflineDeps): Promise<number> {
  const now = deps.now();
  const windowMs = deps.settings.onlineWindowSeconds * 1000;
  let offline = 0;
  const due = await deps.silence.due(now, OFFLINE_BATCH);
  for (let i = 0; i < due.length; i += 100) {
    const done = await Promise.all(
      due.slice(i, i + 100).map(async (entry) => {
        const device = await deps.repo.findDevice(entry.account, entry.id);
        if (!device) return void (await deps.silence.settle(entry)); // deleted: nothing to announce
        const last = device.pingData?.timestamp ? Date.parse(device.pingData.timestamp) : NaN;
        // `isOnline` holds while now - last <= window: due one millisecond after that.
        if (now - last <= windowMs) return void (await deps.silence.postpone(entry, last + windowMs + 1));
        if (!(await deps.silence.settle(entry))) return;
        deps.pushEvents.emit(entry.account, 'device.offline', { ...deviceRef(device), last_ping_at: device.pingData?.timestamp ?? null }, now);
        return 1;
      }),
    );
    offline += done.filter((d) => d === 1).length;
  }
  return offline;
}
