/**
 * Every REST operation, keyed by operationId. Adding an endpoint = a path in
 * schema/openapi/rest.yaml + schema/operations/rest/<operationId>.graphql + one declarative line
 * (declare.ts: listOp/getOp/createOp/updateOp/patchOp/deleteOp, groups.ts: groupOps) listed here;
 * the facade refuses to start when the three disagree or a documented parameter is not mapped.
 */
import { getAccount, listOrganizations, updateAccount } from './account.js';
import { getAuditEvent, listAuditEvents } from './audit-events.js';
import { getDevice, listDevices } from './devices.js';
import { createDevice, deleteDevice, patchDevice, updateDevice } from './device-writes.js';
import { createDeviceGroup, deleteDeviceGroup, listDeviceGroups, updateDeviceGroup } from './device-groups.js';
import { getDevicePingData, getDeviceSnap, getPingData, sendBulkDeviceCommands, sendDeviceCommand, trackDeviceEvent } from './device-commands.js';
import { getAlert, listAlerts, patchAlert, updateAlert } from './alerts.js';
import { getUser, listUsers } from './users.js';
import { createSchedule, createScheduleGroup, deleteSchedule, deleteScheduleGroup, getSchedule, listScheduleGroups, listSchedules, patchSchedule, updateSchedule, updateScheduleGroup } from './schedules.js';
import type { RestOperation } from './types.js';

export type { Accepts, RestInput, RestOperation, RestSuccess } from './types.js';

export const REST_OPERATIONS: Readonly<Record<string, RestOperation>> = {
  getAccount,
  updateAccount,
  listOrganizations,
  listAuditEvents,
  getAuditEvent,
  listUsers,
  getUser,
  listDevices,
  getDevice,
  // Devices issue: device writes, groups, commands, events, ping data, screenshots, alerts.
  createDevice,
  updateDevice,
  patchDevice,
  deleteDevice,
  listDeviceGroups,
  createDeviceGroup,
  updateDeviceGroup,
  deleteDeviceGroup,
  sendDeviceCommand,
  sendBulkDeviceCommands,
  trackDeviceEvent,
  getPingData,
  getDevicePingData,
  getDeviceSnap,
  listAlerts,
  getAlert,
  updateAlert,
  patchAlert,
  // Scheduling issue.
  listSchedules,
  getSchedule,
  createSchedule,
  updateSchedule,
  patchSchedule,
  deleteSchedule,
  listScheduleGroups,
  createScheduleGroup,
  updateScheduleGroup,
  deleteScheduleGroup,
};
