/**
 * sendDeviceCommand / sendBulkDeviceCommands: validate, queue durably (deviceCommands), mark the
 * devices' delivery hint, wake long-polling pings on every replica. Delivery happens on the
 * device's next ping (use-cases/record-ping.ts).
 */
import { AppError, isAppError, type Principal } from '@pylon/kit';
import { MAX_BULK_DEVICES, validateCommands, type CommandInput, type CommandStatus, type DeviceCommandRecord } from '../../domain/command.js';
import type { DeviceCommand } from './command.repository.js';
import type { Device } from '../../shared/device.repository.js';
import type { DevicesRuntime } from '../../runtime.js';

/** What sending commands needs: devices, the queue, the sweep registration, the wake-ups. */
export type SendCommandsDeps = Pick<DevicesRuntime, 'repo' | 'commands' | 'alerts' | 'wakeups' | 'settings' | 'now' | 'logger'>;

export interface SentCommands {
  deviceId: string;
  commandCount: number;
  commands: DeviceCommand[];
}

export interface BulkResult {
  totalDevices: number;
  successCount: number;
  failureCount: number;
  results: { success: boolean; deviceId: string; error: string | null; errorCode: string | null }[];
}

export function records(
  rt: SendCommandsDeps,
  principal: Principal,
  device: Device,
  commands: { command: string; arg: string | null }[],
  now: number,
): DeviceCommandRecord[] {
  // One millisecond apart, so a device receives them in the order given.
  return commands.map((c, i) => ({
    deviceId: device.id,
    command: c.command,
    arg: c.arg,
    status: 'queued',
    queuedAt: new Date(now + i).toISOString(),
    deliveredAt: null,
    completedAt: null,
    expiresAt: new Date(now + rt.settings.commandTtlSeconds * 1000).toISOString(),
    error: null,
    sentBy: principal.userId,
  }));
}

/** After queuing: the delivery hint on each device, the sweep registration, the wake-up. */
export async function announce(rt: SendCommandsDeps, tenant: string, devices: readonly Device[], now: number): Promise<void> {
  const at = new Date(now + 1000).toISOString(); // at or after every queuedAt of this send
  await rt.repo.markCommandsQueued(
    tenant,
    devices.map((d) => d.id),
    at,
  );
  await rt.alerts.registerAccount(tenant, { commands: true });
  await rt.wakeups.notify(
    tenant,
    devices.map((d) => d.id),
  );
}

export async function sendDeviceCommand(
  rt: SendCommandsDeps,
  principal: Principal,
  deviceId: string,
  commands: readonly CommandInput[],
): Promise<SentCommands> {
  const tenant = principal.accountId;
  const valid = validateCommands(commands, await rt.repo.knownCommands(tenant));
  const device = await rt.repo.getDevice(tenant, deviceId);
  const now = rt.now();
  const queued = await rt.commands.queue(tenant, records(rt, principal, device, valid, now));
  await announce(rt, tenant, [device], now);
  return { deviceId: device.id, commandCount: queued.length, commands: queued };
}

/**
 * The same commands to many devices: one read for all devices (never one round trip each), one
 * batched insert of every command, one result per distinct device id in the order given. Unknown
 * and foreign devices fail individually; invalid commands, or a store that refuses the insert, fail
 * every device with the same error.
 */
export async function sendBulkDeviceCommands(
  rt: SendCommandsDeps,
  principal: Principal,
  input: { deviceIds: readonly string[]; commands: readonly CommandInput[] },
): Promise<BulkResult> {
  const tenant = principal.accountId;
  const ids = [...new Set((input.deviceIds ?? []).map((id) => String(id).trim()).filter(Boolean))];
  if (ids.length === 0) throw new AppError('BAD_USER_INPUT', 'deviceIds must name at least one device', { field: 'deviceIds' });
  if (ids.length > MAX_BULK_DEVICES) throw new AppError('BAD_USER_INPUT', `at most ${MAX_BULK_DEVICES} devices per call`, { field: 'deviceIds' });
  const fail = (deviceId: string, e: AppError) => ({ success: false, deviceId, error: e.message, errorCode: e.code });

  let valid: { command: string; arg: string | null }[];
  try {
    valid = validateCommands(input.commands, await rt.repo.knownCommands(tenant));
  } catch (e) {
    if (!isAppError(e)) throw e;
    return summarise(ids.map((id) => fail(id, e)));
  }

  const found = new Map((await rt.repo.findByIds(tenant, ids)).map((d) => [d.id, d]));
  const devices = ids.map((id) => found.get(id)).filter((d): d is Device => d !== undefined);
  const now = rt.now();
  // One batched write for every device's commands (as a bulk job's chunk, features/bulk): a store
  // failure fails every device of the call with the same retryable error.
  let queueError: AppError | null = null;
  try {
    await rt.commands.queue(
      tenant,
      devices.flatMap((d) => records(rt, principal, d, valid, now)),
    );
  } catch (e) {
    rt.logger.error({ err: e, devices: devices.length }, 'bulk commands not queued');
    queueError = isAppError(e) && e.code !== 'INTERNAL' ? e : new AppError('UNAVAILABLE', 'the commands could not be queued; retry');
  }
  if (!queueError) await announce(rt, tenant, devices, now);
  return summarise(
    ids.map((id) => {
      if (found.has(id)) return queueError ? fail(id, queueError) : { success: true, deviceId: id, error: null, errorCode: null };
      return fail(id, new AppError('NOT_FOUND', `device '${id.slice(0, 100)}' was not found`));
    }),
  );
}

function summarise(results: BulkResult['results']): BulkResult {
  const successCount = results.filter((r) => r.success).length;
  return { totalDevices: results.length, successCount, failureCount: results.length - successCount, results };
}

/**
 * A device's commands with their current status, newest first (GraphQL deviceCommands): `status`
 * keeps those of the given effective statuses, `where` / `order` as every list query (kit filters).
 */
export async function listDeviceCommands(
  rt: SendCommandsDeps,
  principal: Principal,
  deviceId: string,
  opts: { status?: CommandStatus[] | null; limit?: number | null; where?: unknown; order?: unknown },
): Promise<DeviceCommand[]> {
  const tenant = principal.accountId;
  const device = await rt.repo.getDevice(tenant, deviceId);
  const limit = opts.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AppError('BAD_USER_INPUT', 'limit must be between 1 and 1000', { field: 'limit' });
  // 'expired' is partly derived (queued past expiry): the status clause asks for the effective status.
  const nowIso = new Date(rt.now()).toISOString();
  return rt.commands.listForDevice(tenant, device.id, { statuses: opts.status, where: opts.where, order: opts.order, limit, nowIso });
}
