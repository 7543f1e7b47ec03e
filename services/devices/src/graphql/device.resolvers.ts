/** Query.device, deviceGroups, displayCommands, deviceCommands and the Device / DeviceCommand types. */
import { pairingRequest } from '../use-cases/pairing.js';
import { isoSeconds, listGroupViews, mayReadField } from '@pylon/kit';
import { effectiveStatus, type CommandStatus } from '../domain/command.js';
import { isOnline } from '../domain/device.js';
import type { DevicesRuntime } from '../runtime.js';
import { countDevices, listDevices } from '../use-cases/list-devices.js';
import { listDeviceCommands } from '../use-cases/send-commands.js';
import { readSnap } from '../use-cases/snaps.js';
import { deviceLoader } from './loaders.js';
import type { QueryResolvers, Resolvers } from './resolvers.generated.js';

const upper = <S extends string>(s: S) => s.toUpperCase() as Uppercase<S>;
const lower = (s: string) => s.toLowerCase();

export function deviceQueryResolvers(rt: DevicesRuntime): QueryResolvers {
  return {
    device: async (_, args, ctx) => {
      const devices = await listDevices({ repo: rt.repo, onlineWindowSeconds: rt.settings.onlineWindowSeconds, now: rt.now }, ctx.principal, args);
      return devices.map((d) => ({ ...d, includeSnap: args.includeSnap === true }));
    },
    deviceCount: (_, args, ctx) => {
      return countDevices({ repo: rt.repo, onlineWindowSeconds: rt.settings.onlineWindowSeconds, now: rt.now }, ctx.principal, args);
    },
    deviceGroups: async (_, args, ctx) => {
      return listGroupViews(rt.repo.groupTree, ctx.principal, args);
    },
    pairingRequest: async (_, args, ctx) => {
      return pairingRequest(rt, ctx.principal, args.code);
    },
    displayCommands: async (_, args, ctx) => {
      return rt.repo.listCommands(ctx.principal.accountId, args);
    },
    deviceCommands: async (_, args, ctx) => {
      return listDeviceCommands(rt, ctx.principal, args.deviceId, {
        status: (args.status?.map(lower) ?? null) as CommandStatus[] | null,
        limit: args.limit ?? null,
        where: args.where,
        order: args.order,
      });
    },
  };
}

export function deviceTypeResolvers(rt: DevicesRuntime): Pick<Resolvers, 'Device' | 'DeviceCommand'> {
  return {
    Device: {
      __resolveReference: async (ref, ctx) => {
        return deviceLoader(rt, ctx).load(ref.id);
      },
      isOnline: (d) => isOnline(d.pingData ?? null, rt.now(), rt.settings.onlineWindowSeconds),
      tags: (d) => d.tags ?? [],
      pingData: (d) => (d.pingData ? { ...d.pingData, timestamp: isoSeconds(d.pingData.timestamp) } : null),
      // Synchronous unless asked for: one promise-returning field makes graphql-js resolve every
      // device of a list asynchronously, which costs far more than the field itself.
      snap: (d) => (d.includeSnap ? readSnap(rt, d).then((bytes) => (bytes ? bytes.toString('base64') : null)) : null),
      // The player's credential: only for those who may edit devices (viewers could impersonate the screen).
      registrationKey: (d, _, ctx) => (mayReadField(ctx.principal, 'Device.registrationKey') ? (d.registrationKey ?? null) : null),
      timezone: (d) => d.timezone ?? null,
      notes: (d) => d.notes ?? null,
      createdOn: (d) => isoSeconds(d.createdAt),
      updatedOn: (d) => isoSeconds(d.updatedAt),
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
