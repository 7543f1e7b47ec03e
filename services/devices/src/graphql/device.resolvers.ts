/** Query.device, deviceGroups, displayCommands, deviceCommands and the Device / DeviceCommand types. */
import { isoSeconds, requirePolicy, type SubgraphContext } from '@pylon/kit';
import { effectiveStatus, type CommandStatus } from '../domain/command.js';
import { isOnline } from '../domain/device.js';
import type { DeviceCommand } from '../command.repository.js';
import type { Device } from '../device.repository.js';
import type { DevicesRuntime } from '../runtime.js';
import { listDeviceGroups } from '../use-cases/device-groups.js';
import { listDevices, type DeviceQuery } from '../use-cases/list-devices.js';
import { listDeviceCommands } from '../use-cases/send-commands.js';
import { readSnap } from '../use-cases/snaps.js';
import { deviceLoader } from './loaders.js';

/** A stored device as resolvers see it: whether this query asked for screenshots rides along. */
export type DeviceSource = Device & { includeSnap?: boolean };

const upper = (s: string) => s.toUpperCase();
const lower = (s: string) => s.toLowerCase();

export function deviceQueryResolvers(rt: DevicesRuntime) {
  return {
    device: async (_: unknown, args: DeviceQuery & { includeSnap?: boolean }, ctx: SubgraphContext) => {
      requirePolicy(ctx.principal, 'Devices_View');
      const devices = await listDevices({ repo: rt.repo, onlineWindowSeconds: rt.settings.onlineWindowSeconds, now: rt.now }, ctx.principal, args);
      return devices.map((d) => ({ ...d, includeSnap: args.includeSnap === true }));
    },
    deviceGroups: async (_: unknown, args: { tree?: boolean }, ctx: SubgraphContext) => {
      requirePolicy(ctx.principal, 'Devices_View');
      return listDeviceGroups(rt.repo, ctx.principal, args.tree === true);
    },
    displayCommands: async (_: unknown, __: unknown, ctx: SubgraphContext) => {
      requirePolicy(ctx.principal, 'Devices_View');
      return rt.repo.listCommands(ctx.principal.accountId);
    },
    deviceCommands: async (_: unknown, args: { deviceId: string; status?: string[] | null; limit?: number | null }, ctx: SubgraphContext) => {
      requirePolicy(ctx.principal, 'Devices_View');
      return listDeviceCommands(rt, ctx.principal, args.deviceId, { status: (args.status?.map(lower) ?? null) as CommandStatus[] | null, limit: args.limit ?? null });
    },
  };
}

export function deviceTypeResolvers(rt: DevicesRuntime) {
  return {
    Device: {
      __resolveReference: async (ref: { id: string }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Devices_View');
        return deviceLoader(rt, ctx).load(ref.id);
      },
      isOnline: (d: DeviceSource) => isOnline(d.pingData, rt.now(), rt.settings.onlineWindowSeconds),
      tags: (d: DeviceSource) => d.tags ?? [],
      pingData: (d: DeviceSource) => (d.pingData ? { ...d.pingData, timestamp: isoSeconds(d.pingData.timestamp) } : null),
      // Synchronous unless asked for: one promise-returning field makes graphql-js resolve every
      // device of a list asynchronously, which costs far more than the field itself.
      snap: (d: DeviceSource) => (d.includeSnap ? readSnap(rt, d).then((bytes) => (bytes ? bytes.toString('base64') : null)) : null),
      // The player's credential: only for those who may edit devices (viewers could impersonate the screen).
      registrationKey: (d: DeviceSource, _: unknown, ctx: SubgraphContext) => (ctx.principal.policies.includes('Devices_Edit') ? (d.registrationKey ?? null) : null),
      timezone: (d: DeviceSource) => d.timezone ?? null,
      notes: (d: DeviceSource) => d.notes ?? null,
      createdOn: (d: DeviceSource) => isoSeconds(d.createdAt),
      updatedOn: (d: DeviceSource) => isoSeconds(d.updatedAt),
    },
    DeviceCommand: {
      status: (c: DeviceCommand) => upper(effectiveStatus(c, rt.now())),
      queuedOn: (c: DeviceCommand) => isoSeconds(c.queuedAt),
      deliveredOn: (c: DeviceCommand) => isoSeconds(c.deliveredAt),
      completedOn: (c: DeviceCommand) => isoSeconds(c.completedAt ?? (effectiveStatus(c, rt.now()) === 'expired' ? c.expiresAt : null)),
      expiresOn: (c: DeviceCommand) => isoSeconds(c.expiresAt),
    },
  };
}
