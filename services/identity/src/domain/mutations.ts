import type { AccessRule, Requirement } from './access.js';

/**
 * Every GraphQL mutation and what it requires: the spec's Mutations table, plus the account
 * administration mutations of the identity subgraph. `permissions` derives allowedMutations and
 * deniedMutations from this table, and the subgraphs enforce the same rules, so what the query
 * says is what the API does (gateway/test/access.e2e.test.ts checks it against the schema).
 */
export const MUTATION_RULES: Record<string, Requirement> = {
  createDataTable: 'DataTables_Edit',
  updateDataTable: 'DataTables_Edit',
  deleteDataTable: 'DataTables_Delete',
  createDataTableRow: 'DataTables_Edit',
  updateDataTableRow: 'DataTables_Edit',
  deleteDataTableRow: 'DataTables_Delete',
  batchCreateDataTableRows: 'DataTables_Edit',
  batchDeleteDataTableRows: 'DataTables_Delete',
  importDataTableRows: 'DataTables_Edit',
  reorderDataTableRows: 'DataTables_Edit',
  rollbackDataTableRow: 'DataTables_Edit',
  sendDeviceCommand: 'Devices_Edit',
  sendBulkDeviceCommands: 'Devices_Edit',
  createMediaFromUrl: 'Files_Edit',
  updateMedia: 'Files_Edit',
  deleteMedia: 'Files_Delete',
  addPlaylistSource: 'Playlists_Edit',
  updatePlaylistSource: 'Playlists_Edit',
  removePlaylistSource: 'Playlists_Edit',
  reorderPlaylistSources: 'Playlists_Edit',
  // Device management (devices subgraph; REST device, group, track and alert endpoints).
  createDevice: 'Devices_Edit',
  updateDevice: 'Devices_Edit',
  patchDevice: 'Devices_Edit',
  deleteDevice: 'Devices_Delete',
  createDeviceGroup: 'Devices_Edit',
  updateDeviceGroup: 'Devices_Edit',
  deleteDeviceGroup: 'Devices_Delete',
  trackDeviceEvent: 'Devices_Edit',
  updateAlert: ['Alerts_View', 'Devices_Edit'],
  patchAlert: ['Alerts_View', 'Devices_Edit'],
  createAlertRule: ['Alerts_View', 'Devices_Edit'],
  updateAlertRule: ['Alerts_View', 'Devices_Edit'],
  deleteAlertRule: ['Alerts_View', 'Devices_Delete'],
  // Account administration (identity subgraph).
  updateAccount: 'Administrator',
  createOrganization: 'Administrator',
  createUser: 'Administrator',
  createApiKey: 'Administrator',
  revokeApiKey: 'Administrator',
};

/** Resources reported by `permissions`, with the rule that governs each right. */
export const RESOURCES: { resource: string; view: AccessRule; edit?: AccessRule; delete?: AccessRule }[] = [
  { resource: 'Devices', view: 'Devices_View', edit: 'Devices_Edit', delete: 'Devices_Delete' },
  { resource: 'Files', view: 'Files_View', edit: 'Files_Edit', delete: 'Files_Delete' },
  { resource: 'Playlists', view: 'Playlists_View', edit: 'Playlists_Edit', delete: 'Playlists_Delete' },
  { resource: 'Templates', view: 'Templates_View', edit: 'Templates_Edit', delete: 'Templates_Delete' },
  { resource: 'Schedules', view: 'Schedules_View', edit: 'Schedules_Edit', delete: 'Schedules_Delete' },
  { resource: 'Alerts', view: 'Alerts_View' },
  { resource: 'DataTables', view: 'DataTables_View', edit: 'DataTables_Edit', delete: 'DataTables_Delete' },
  { resource: 'Analytics', view: 'Analytics_View' },
  { resource: 'Users', view: 'Account_ManageUsers_View', edit: 'Administrator' },
  { resource: 'AuditEvents', view: 'AuditEventsOwnerOnly' },
  { resource: 'Account', view: 'Authenticated', edit: 'Administrator' },
  { resource: 'ApiKeys', view: 'Administrator', edit: 'Administrator', delete: 'Administrator' },
];
