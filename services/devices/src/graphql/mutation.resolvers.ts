/** Mutation: every expected failure becomes { success: false, error, errorCode, errorField } (kit mutationPayload). */
import { mutationPayload, requirePolicy, type Policy, type SubgraphContext } from '@pylon/kit';
import type { CommandInput } from '../domain/command.js';
import type { DevicesRuntime } from '../runtime.js';
import { createAlertRule, deleteAlertRule, updateAlertRule } from '../use-cases/alerts/alert-rules.js';
import { patchAlert, updateAlert, type AlertChanges } from '../use-cases/alerts/manage-alerts.js';
import { createDeviceGroup, deleteDeviceGroup, updateDeviceGroup } from '../use-cases/device-groups.js';
import { createDevice, deleteDevice, updateDevice } from '../use-cases/manage-devices.js';
import { patchDevice } from '../use-cases/patch-device.js';
import { sendBulkDeviceCommands, sendDeviceCommand } from '../use-cases/send-commands.js';
import { trackEvent } from '../use-cases/track-event.js';

type Args = Record<string, unknown> & { id: string };

const need = (ctx: SubgraphContext, ...policies: Policy[]) => {
  for (const p of policies) requirePolicy(ctx.principal, p);
};

export function mutationResolvers(rt: DevicesRuntime) {
  const repo = rt.repo;
  return {
    createDevice: (_: unknown, a: { input: Record<string, unknown> }, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Edit');
      return mutationPayload(async () => ({ device: await createDevice(rt, ctx.principal, a.input) }));
    },
    updateDevice: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Edit');
      return mutationPayload(async () => ({ device: await updateDevice(rt, ctx.principal, a.id, a.input) }));
    },
    patchDevice: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Edit');
      return mutationPayload(async () => ({ device: await patchDevice(rt, ctx.principal, a.id, a.operations) }));
    },
    deleteDevice: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Delete');
      return mutationPayload(() => deleteDevice(rt, ctx.principal, a.id));
    },
    createDeviceGroup: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Edit');
      return mutationPayload(async () => ({ group: await createDeviceGroup(repo, ctx.principal, a.input) }));
    },
    updateDeviceGroup: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Edit');
      return mutationPayload(async () => ({ group: await updateDeviceGroup(repo, ctx.principal, a.id, a.input) }));
    },
    deleteDeviceGroup: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Delete');
      return mutationPayload(() => deleteDeviceGroup(repo, ctx.principal, a.id));
    },
    sendDeviceCommand: (_: unknown, a: { deviceId: string; commands: CommandInput[] }, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Edit');
      return mutationPayload(() => sendDeviceCommand(rt, ctx.principal, a.deviceId, a.commands));
    },
    // Spec: this result has no top-level success; problems with the list itself are request errors.
    sendBulkDeviceCommands: (_: unknown, a: { input: { deviceIds: string[]; commands: CommandInput[] } }, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Edit');
      return sendBulkDeviceCommands(rt, ctx.principal, a.input);
    },
    trackDeviceEvent: (_: unknown, a: { deviceId: string; input: unknown }, ctx: SubgraphContext) => {
      need(ctx, 'Devices_Edit');
      return mutationPayload(async () => trackEvent(rt, await repo.getDevice(ctx.principal.accountId, a.deviceId), a.input));
    },
    updateAlert: (_: unknown, a: { id: string; input: AlertChanges }, ctx: SubgraphContext) => {
      need(ctx, 'Alerts_View', 'Devices_Edit');
      return mutationPayload(async () => ({ alert: await updateAlert(rt, ctx.principal, a.id, a.input) }));
    },
    patchAlert: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Alerts_View', 'Devices_Edit');
      return mutationPayload(async () => ({ alert: await patchAlert(rt, ctx.principal, a.id, a.operations) }));
    },
    createAlertRule: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Alerts_View', 'Devices_Edit');
      return mutationPayload(async () => ({ alertRule: await createAlertRule(rt, ctx.principal, a.input) }));
    },
    updateAlertRule: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Alerts_View', 'Devices_Edit');
      return mutationPayload(async () => ({ alertRule: await updateAlertRule(rt, ctx.principal, a.id, a.input) }));
    },
    deleteAlertRule: (_: unknown, a: Args, ctx: SubgraphContext) => {
      need(ctx, 'Alerts_View', 'Devices_Delete');
      return mutationPayload(() => deleteAlertRule(rt, ctx.principal, a.id));
    },
  };
}
