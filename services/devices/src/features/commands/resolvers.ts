/** GraphQL of device commands: the account's display commands, a device's commands and their status, sending them. */
import { isoSeconds, mutationPayload } from '@pylon/kit';
import { effectiveStatus, type CommandStatus } from '../../domain/command.js';
import type { DevicesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { listDeviceCommands, sendBulkDeviceCommands, sendDeviceCommand } from './send-commands.js';

const upper = <S extends string>(s: S) => s.toUpperCase() as Uppercase<S>;
const lower = (s: string) => s.toLowerCase();

export function commandResolvers(rt: DevicesRuntime): Resolvers {
  return {
    Query: {
      displayCommands: async (_, args, ctx) => rt.repo.listCommands(ctx.principal.accountId, args),
      deviceCommands: async (_, args, ctx) => {
        return listDeviceCommands(rt, ctx.principal, args.deviceId, {
          status: (args.status?.map(lower) ?? null) as CommandStatus[] | null,
          limit: args.limit ?? null,
          where: args.where,
          order: args.order,
        });
      },
    },
    Mutation: {
      sendDeviceCommand: (_, a, ctx) => mutationPayload(() => sendDeviceCommand(rt, ctx.principal, a.deviceId, a.commands)),
      // Spec: this result has no top-level success; problems with the list itself are request errors.
      sendBulkDeviceCommands: (_, a, ctx) => sendBulkDeviceCommands(rt, ctx.principal, a.input),
    },
    DeviceCommand: {
      status: (c) => upper(effectiveStatus(c, rt.now())),
      queuedOn: (c) => isoSeconds(c.queuedAt),
      deliveredOn: (c) => isoSeconds(c.deliveredAt),
      completedOn: (c) => isoSeconds(c.completedAt ?? (effectiveStatus(c, rt.now()) === 'expired' ? c.expiresAt : null)),
      expiresOn: (c) => isoSeconds(c.expiresAt),
    },
  };
}
