/** GraphQL of devices: the list and its count, the writes, and the Device type (also resolved by key). */
import { isoSeconds, mayReadField, mutationPayload } from '@pylon/kit';
import { isOnline } from '../../domain/device.js';
import type { DevicesRuntime } from '../../runtime.js';
import { deviceLoader } from '../../shared/loaders.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { readSnap } from '../player/snaps.js';
import { countDevices, listDevices } from './list-devices.js';
import { createDevice, deleteDevice, updateDevice } from './manage-devices.js';
import { patchDevice } from './patch-device.js';

export function deviceResolvers(rt: DevicesRuntime): Resolvers {
  return {
    Query: {
      device: async (_, args, ctx) => {
        const devices = await listDevices({ repo: rt.repo, onlineWindowSeconds: rt.settings.onlineWindowSeconds, now: rt.now }, ctx.principal, args);
        return devices.map((d) => ({ ...d, includeSnap: args.includeSnap === true }));
      },
      deviceCount: (_, args, ctx) => countDevices({ repo: rt.repo, onlineWindowSeconds: rt.settings.onlineWindowSeconds, now: rt.now }, ctx.principal, args),
    },
    Mutation: {
      createDevice: (_, a, ctx) => mutationPayload(async () => ({ device: await createDevice(rt, ctx.principal, a.input) })),
      updateDevice: (_, a, ctx) => mutationPayload(async () => ({ device: await updateDevice(rt, ctx.principal, a.id, a.input) })),
      patchDevice: (_, a, ctx) => mutationPayload(async () => ({ device: await patchDevice(rt, ctx.principal, a.id, a.operations) })),
      deleteDevice: (_, a, ctx) => mutationPayload(() => deleteDevice(rt, ctx.principal, a.id)),
    },
    Device: {
      __resolveReference: async (ref, ctx) => deviceLoader(rt, ctx).load(ref.id),
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
  };
}
