/**
 * Device commands: what an operator sends (restart, volume 40, ...) and its life cycle.
 *
 *   queued --(next ping)--> delivered --(player ack)--> acknowledged | failed
 *   queued | delivered --(expiresAt passes)--> expired
 *
 * Delivery is at most once: a command handed to a ping is never handed out again (a repeated
 * `reboot` is worse than a lost one); the player's ack reports what became of it.
 */
import { AppError } from '@pylon/kit';

export const COMMAND_STATUSES = ['queued', 'delivered', 'acknowledged', 'failed', 'expired'] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];
export const TERMINAL_STATUSES: ReadonlySet<CommandStatus> = new Set(['acknowledged', 'failed', 'expired']);

export interface DeviceCommandRecord {
  deviceId: string;
  command: string;
  arg: string | null;
  status: CommandStatus;
  queuedAt: string;
  deliveredAt: string | null;
  /** When the player acknowledged or failed it, or when it expired. */
  completedAt: string | null;
  expiresAt: string;
  /** The player's message with a failed ack. */
  error: string | null;
  /** User who sent it. */
  sentBy: string;
}

export interface CommandInput {
  command: string;
  arg?: string | null;
}

/** Most commands in one send (per device). */
export const MAX_COMMANDS_PER_SEND = 20;
/** Most devices in one bulk send. */
export const MAX_BULK_DEVICES = 5000;

const bad = (field: string, message: string) => new AppError('BAD_USER_INPUT', message, { field });

/**
 * Checks commands against the account's display commands. `volume` takes an integer 0..100 as a
 * string; other commands take an optional free-text arg. Returns them normalised.
 */
export function validateCommands(commands: readonly CommandInput[], known: ReadonlySet<string>): { command: string; arg: string | null }[] {
  if (!Array.isArray(commands) || commands.length === 0) throw bad('commands', 'commands must hold at least one command');
  if (commands.length > MAX_COMMANDS_PER_SEND) throw bad('commands', `at most ${MAX_COMMANDS_PER_SEND} commands can be sent at once`);
  return commands.map((c, i) => {
    const command = typeof c?.command === 'string' ? c.command.trim() : '';
    if (!command) throw bad(`commands[${i}].command`, `commands[${i}].command is required`);
    if (!known.has(command)) {
      throw bad(`commands[${i}].command`, `unknown command '${command.slice(0, 50)}'; known commands: ${[...known].join(', ')}`);
    }
    const raw = c.arg === undefined || c.arg === null ? null : String(c.arg).trim();
    const arg = raw === '' ? null : raw;
    if (command === 'volume') {
      if (arg === null || !/^\d{1,3}$/.test(arg) || Number(arg) > 100) {
        throw bad(`commands[${i}].arg`, `the volume command needs arg: an integer from 0 to 100 (got ${arg === null ? 'none' : `'${arg.slice(0, 20)}'`})`);
      }
      return { command, arg: String(Number(arg)) };
    }
    if (arg !== null && arg.length > 1000) throw bad(`commands[${i}].arg`, `commands[${i}].arg must be at most 1000 characters`);
    return { command, arg };
  });
}

/** The status a reader sees: a queued or delivered command past its expiry is expired. */
export function effectiveStatus(c: Pick<DeviceCommandRecord, 'status' | 'expiresAt'>, now: number): CommandStatus {
  if ((c.status === 'queued' || c.status === 'delivered') && Date.parse(c.expiresAt) <= now) return 'expired';
  return c.status;
}

/** What a player may report in an ack: `delivered` is read as "carried out", like `acknowledged`. */
export const ACK_STATUSES = ['acknowledged', 'delivered', 'failed'] as const;
export type AckStatus = (typeof ACK_STATUSES)[number];

/** The status an ack moves a command to, or an error when the command is past acknowledging. */
export function ackTransition(c: Pick<DeviceCommandRecord, 'status' | 'expiresAt'>, ack: AckStatus, now: number): CommandStatus {
  const target: CommandStatus = ack === 'failed' ? 'failed' : 'acknowledged';
  const current = effectiveStatus(c, now);
  if (current === target) return target; // a repeated ack changes nothing
  if (current === 'expired') throw new AppError('UNPROCESSABLE', 'the command expired before it was acknowledged');
  if (TERMINAL_STATUSES.has(current)) throw new AppError('UNPROCESSABLE', `the command was already reported ${current}`);
  return target;
}
