/** Hands queued commands to a ping, at most once each. */
import type { DeviceRef, PushEvents } from '@pylon/kit';
import { effectiveStatus } from '../../domain/command.js';
import type { CommandRepository, DeviceCommand } from './command.repository.js';

/** A command as the player receives it (snake_case, like every player API body). */
export interface DeliveredCommand {
  id: string;
  command: string;
  arg: string | null;
  queued_on: string;
  expires_on: string;
}

const isConflict = (e: unknown) => (e as { code?: string } | null)?.code === 'VERSION_CONFLICT';

/**
 * Marks the given queued commands delivered (or expired, past their expiry) and returns the
 * delivered ones in queue order. Each update names the version read, so when two pings of the
 * same device race (two replicas), each command goes to exactly one of them.
 */
export async function deliverCommands(
  rt: { commands: CommandRepository; now: () => number; pushEvents?: PushEvents },
  tenant: string,
  pending: readonly DeviceCommand[],
  now = rt.now(),
  device?: DeviceRef,
): Promise<DeliveredCommand[]> {
  const at = new Date(now).toISOString();
  const results = await Promise.all(
    pending.map(async (c) => {
      const expired = effectiveStatus(c, now) === 'expired';
      try {
        const updated = await rt.commands.claimForDelivery(tenant, c, at, expired);
        if (updated)
          rt.pushEvents?.emit(
            tenant,
            expired ? 'command.expired' : 'command.delivered',
            { ...(device ?? { device_id: c.deviceId }), command_id: c.id, command: c.command, status: expired ? 'expired' : 'delivered' },
            now,
          );
        return updated && !expired ? c : null;
      } catch (e) {
        if (isConflict(e)) return null; // delivered by a concurrent ping
        throw e;
      }
    }),
  );
  return results
    .filter((c): c is DeviceCommand => c !== null)
    .map((c) => ({ id: c.id, command: c.command, arg: c.arg, queued_on: isoZ(c.queuedAt), expires_on: isoZ(c.expiresAt) }));
}

const isoZ = (iso: string) => `${iso.slice(0, 19)}Z`;
