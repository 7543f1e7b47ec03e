/** Every legacy resource, in mount order. */
import { getAccount } from './account.resource.js';
import { createDevice, deleteDevice, getDevice, listDevices, postDevice, putDevice } from './devices.resource.js';
import { createDeviceGroup, deleteDeviceGroup, listDeviceGroups, updateDeviceGroup } from './device-groups.resource.js';
import { listSchedules } from './schedules.resource.js';
import { getMedia, getPlaylist, getTemplate, listMedia, listPlaylists, listTemplates } from './content.resource.js';
import {
  createDataTableRow,
  deleteDataTableRow,
  getDataTable,
  getDataTableRow,
  listDataTableRows,
  listDataTables,
  postDataTableRow,
  putDataTableRow,
} from './datatables.resource.js';
import { getAnalyticsDataset, postAnalyticsDataset } from './analytics.resource.js';
import type { DefinedResource } from './resource.js';

export const RESOURCES: readonly DefinedResource[] = [
  getAccount,
  listDevices,
  // Devices issue. /devices/groups before /devices/:id, so the literal path wins.
  listDeviceGroups,
  createDeviceGroup,
  updateDeviceGroup,
  deleteDeviceGroup,
  getDevice,
  createDevice,
  putDevice,
  postDevice,
  deleteDevice,
  // Content issue: read-only media, playlists (also RSS) and templates.
  listMedia,
  getMedia,
  listPlaylists,
  getPlaylist,
  listTemplates,
  getTemplate,
  // Scheduling issue.
  listSchedules,
  // Data tables issue: tables read-only, rows read and written.
  listDataTables,
  getDataTable,
  listDataTableRows,
  createDataTableRow,
  getDataTableRow,
  putDataTableRow,
  postDataTableRow,
  deleteDataTableRow,
  // Analytics issue: datasets in json, xml and JSONP.
  postAnalyticsDataset,
  getAnalyticsDataset,
];
