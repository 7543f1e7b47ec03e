/**
 * Every REST operation, keyed by operationId. Adding an endpoint = a path in
 * schema/openapi/rest.yaml + schema/operations/rest/<operationId>.graphql + one declarative line
 * (declare.ts: listOp/getOp/createOp/updateOp/patchOp/deleteOp, groups.ts: groupOps) listed here;
 * the facade refuses to start when the three disagree or a documented parameter is not mapped.
 */
import { getAccount, listOrganizations, updateAccount } from './account.js';
import { ANALYTICS_OPERATIONS } from './analytics.js';
import { getAuditEvent, listAuditEvents } from './audit-events.js';
import { getDevice, listDevices } from './devices.js';
import { claimDevice, createDevice, deleteDevice, patchDevice, updateDevice } from './device-writes.js';
import { createDeviceGroup, deleteDeviceGroup, listDeviceGroups, updateDeviceGroup } from './device-groups.js';
import {
  getDevicePingData,
  getDeviceSnap,
  getPingData,
  listDeviceCommands,
  sendBulkDeviceCommands,
  sendDeviceCommand,
  trackDeviceEvent,
} from './device-commands.js';
import { getAlert, listAlerts, patchAlert, updateAlert } from './alerts.js';
import { getUser, listUsers } from './users.js';
import {
  createMediaGroup,
  deleteMedia,
  deleteMediaGroup,
  getMedia,
  importMedia,
  listMedia,
  listMediaGroups,
  patchMedia,
  updateMedia,
  updateMediaGroup,
} from './media.js';
import {
  createPlaylist,
  createPlaylistGroup,
  deletePlaylist,
  deletePlaylistGroup,
  getPlaylist,
  listPlaylistGroups,
  listPlaylists,
  patchPlaylist,
  updatePlaylist,
  updatePlaylistGroup,
} from './playlists.js';
import { createTemplateGroup, deleteTemplate, deleteTemplateGroup, getTemplate, listTemplateGroups, listTemplates, updateTemplateGroup } from './templates.js';
import {
  batchCreateDataTableRows,
  batchDeleteDataTableRows,
  createDataTable,
  createDataTableRow,
  deleteDataTable,
  deleteDataTableRow,
  getDataTable,
  getDataTableRowVersion,
  listDataTableRowVersions,
  listDataTables,
  reorderDataTableRows,
  rollbackDataTableRow,
  updateDataTable,
  updateDataTableRow,
} from './datatables.js';
import {
  createSchedule,
  createScheduleGroup,
  deleteSchedule,
  deleteScheduleGroup,
  getSchedule,
  listScheduleGroups,
  listSchedules,
  patchSchedule,
  updateSchedule,
  updateScheduleGroup,
} from './schedules.js';
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
  claimDevice,
  updateDevice,
  patchDevice,
  deleteDevice,
  listDeviceGroups,
  createDeviceGroup,
  updateDeviceGroup,
  deleteDeviceGroup,
  sendDeviceCommand,
  listDeviceCommands,
  sendBulkDeviceCommands,
  trackDeviceEvent,
  getPingData,
  getDevicePingData,
  getDeviceSnap,
  listAlerts,
  getAlert,
  updateAlert,
  patchAlert,
  // Content issue: media (uploads are served by the content service's router), playlists, templates, groups.
  listMedia,
  getMedia,
  updateMedia,
  patchMedia,
  deleteMedia,
  importMedia,
  listMediaGroups,
  createMediaGroup,
  updateMediaGroup,
  deleteMediaGroup,
  listPlaylists,
  createPlaylist,
  getPlaylist,
  updatePlaylist,
  patchPlaylist,
  deletePlaylist,
  listPlaylistGroups,
  createPlaylistGroup,
  updatePlaylistGroup,
  deletePlaylistGroup,
  listTemplates,
  getTemplate,
  deleteTemplate,
  listTemplateGroups,
  createTemplateGroup,
  updateTemplateGroup,
  deleteTemplateGroup,
  // Data tables issue (row reads, import and export: x-pylon-handler datatables).
  listDataTables,
  createDataTable,
  getDataTable,
  updateDataTable,
  deleteDataTable,
  createDataTableRow,
  updateDataTableRow,
  deleteDataTableRow,
  batchCreateDataTableRows,
  batchDeleteDataTableRows,
  reorderDataTableRows,
  listDataTableRowVersions,
  getDataTableRowVersion,
  rollbackDataTableRow,
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
  // Analytics issue: the /analytics datasets (GET and the legacy POST /analytics/dataset).
  ...ANALYTICS_OPERATIONS,
};
