/** A player reports what became of a delivered command: acknowledged (carried out) or failed. */
import { z } from 'zod';
import { AppError, deviceRef, notFound } from '@pylon/kit';
import { ACK_STATUSES, ackTransition } from '../../domain/command.js';
import { parseInput } from '../../domain/validation.js';
import type { DevicesRuntime } from '../../runtime.js';
import { authenticatePlayer } from '../player/player-auth.js';

const ackSchema = z
  .object({
    status: z.enum(ACK_STATUSES).optional().default('acknowledged'),
    message: z.string().max(2000).nullable().optional(),
  })
  .strict();

export interface AckResult {
  id: string;
  status: string;
}

export async function ackCommand(
  rt: Pick<DevicesRuntime, 'repo' | 'commands' | 'now' | 'pushEvents'>,
  registrationKey: string,
  commandId: string,
  body: unknown,
): Promise<AckResult> {
  const device = await authenticatePlayer(rt, registrationKey);
  const ack = parseInput(ackSchema, body ?? {});
  const tenant = device.accountId;
  const command = await rt.commands.get(tenant, commandId);
  // Another device's command (even of the same account) is as unknown as a missing one.
  if (!command || command.deviceId !== device.id) throw notFound('command', commandId.slice(0, 100));
  const now = rt.now();
  const status = ackTransition(command, ack.status, now);
  if (status !== command.status) {
    const at = new Date(now).toISOString();
    const updated = await rt.commands.complete(tenant, command, status, at, status === 'failed' ? (ack.message ?? 'failed') : null).catch((e: unknown) => {
      if ((e as { code?: string }).code === 'VERSION_CONFLICT')
        throw new AppError('UNPROCESSABLE', 'the command changed while it was acknowledged; send the ack again');
      throw e;
    });
    if (!updated) throw notFound('command', commandId.slice(0, 100));
    rt.pushEvents?.emit(tenant, 'command.acknowledged', { ...deviceRef(device), command_id: command.id, command: command.command, status }, now);
  }
  return { id: command.id, status };
}
