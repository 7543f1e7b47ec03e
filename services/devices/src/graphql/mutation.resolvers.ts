/** Mutation: every expected failure becomes { success: false, error, errorCode, errorField } (kit mutationPayload). */
import { createGroup, deleteGroup, mutationPayload, updateGroup } from '@pylon/kit';
import type { DevicesRuntime } from '../runtime.js';
import { createAlertRule, deleteAlertRule, updateAlertRule } from '../use-cases/alerts/alert-rules.js';
import { patchAlert, updateAlert } from '../use-cases/alerts/manage-alerts.js';
import { createDevice, deleteDevice, updateDevice } from '../use-cases/manage-devices.js';
import { claimDevice } from '../use-cases/pairing.js';
import { patchDevice } from '../use-cases/patch-device.js';
import { sendBulkDeviceCommands, sendDeviceCommand } from '../use-cases/send-commands.js';
import { trackEvent } from '../use-cases/track-event.js';
import type { MutationResolvers } from './resolvers.generated.js';

/** Each mutation guards through kit's operation-rules (the table `permissions` reports). */
export function mutationResolvers(rt: DevicesRuntime): MutationResolvers {
  const repo = rt.repo;
  return {
    createDevice: (_, a, ctx) => {
      return mutationPayload(async () => ({ device: await createDevice(rt, ctx.principal, a.input) }));
    },
    updateDevice: (_, a, ctx) => {
      return mutationPayload(async () => ({ device: await updateDevice(rt, ctx.principal, a.id, a.input) }));
    },
    patchDevice: (_, a, ctx) => {
      return mutationPayload(async () => ({ device: await patchDevice(rt, ctx.principal, a.id, a.operations) }));
    },
    claimDevice: (_, a, ctx) => {
      return mutationPayload(async () => ({ device: await claimDevice(rt, ctx.principal, a) }));
    },
    deleteDevice: (_, a, ctx) => {
      return mutationPayload(() => deleteDevice(rt, ctx.principal, a.id));
    },
    createDeviceGroup: (_, a, ctx) => {
      return mutationPayload(async () => ({ group: await createGroup(repo.groupTree, ctx.principal, a.input) }));
    },
    updateDeviceGroup: (_, a, ctx) => {
      return mutationPayload(async () => ({ group: await updateGroup(repo.groupTree, ctx.principal, a.id, a.input) }));
    },
    deleteDeviceGroup: (_, a, ctx) => {
      return mutationPayload(async () => {
        const { movedItems, ...deleted } = await deleteGroup(repo.groupTree, ctx.principal, a.id);
        return { ...deleted, movedDevices: movedItems };
      });
    },
    sendDeviceCommand: (_, a, ctx) => {
      return mutationPayload(() => sendDeviceCommand(rt, ctx.principal, a.deviceId, a.commands));
    },
    // Spec: this result has no top-level success; problems with the list itself are request errors.
    sendBulkDeviceCommands: (_, a, ctx) => {
      return sendBulkDeviceCommands(rt, ctx.principal, a.input);
    },
    trackDeviceEvent: (_, a, ctx) => {
      return mutationPayload(async () => trackEvent(rt, await repo.getDevice(ctx.principal.accountId, a.deviceId), a.input));
    },
    updateAlert: (_, a, ctx) => {
      return mutationPayload(async () => ({ alert: await updateAlert(rt, ctx.principal, a.id, a.input) }));
    },
    patchAlert: (_, a, ctx) => {
      return mutationPayload(async () => ({ alert: await patchAlert(rt, ctx.principal, a.id, a.operations) }));
    },
    createAlertRule: (_, a, ctx) => {
      return mutationPayload(async () => ({ alertRule: await createAlertRule(rt, ctx.principal, a.input) }));
    },
    updateAlertRule: (_, a, ctx) => {
      return mutationPayload(async () => ({ alertRule: await updateAlertRule(rt, ctx.principal, a.id, a.input) }));
    },
    deleteAlertRule: (_, a, ctx) => {
      return mutationPayload(() => deleteAlertRule(rt, ctx.principal, a.id));
    },
  };
}
