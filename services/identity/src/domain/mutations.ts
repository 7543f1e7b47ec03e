import type { Policy } from '@pylon/kit';

/**
 * Every GraphQL mutation and the policy it requires (spec, Mutations table). `permissions`
 * derives allowedMutations/deniedMutations from this table, and subgraphs enforce the same
 * policies, so what the query says is what the API does.
 */
export const MUTATION_POLICIES: Record<string, Policy> = {
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
};

/** Resources reported by `permissions`, with the policy prefix that governs each. */
export const RESOURCES: { resource: string; view: Policy; edit?: Policy; delete?: Policy }[] = [
  { resource: 'Devices', view: 'Devices_View', edit: 'Devices_Edit', delete: 'Devices_Delete' },
  { resource: 'Files', view: 'Files_View', edit: 'Files_Edit', delete: 'Files_Delete' },
  { resource: 'Playlists', view: 'Playlists_View', edit: 'Playlists_Edit', delete: 'Playlists_Delete' },
  { resource: 'Templates', view: 'Templates_View', edit: 'Templates_Edit', delete: 'Templates_Delete' },
  { resource: 'Schedules', view: 'Schedules_View', edit: 'Schedules_Edit', delete: 'Schedules_Delete' },
  { resource: 'Alerts', view: 'Alerts_View' },
  { resource: 'DataTables', view: 'DataTables_View', edit: 'DataTables_Edit', delete: 'DataTables_Delete' },
  { resource: 'Analytics', view: 'Analytics_View' },
  { resource: 'Users', view: 'Account_ManageUsers_View' },
  { resource: 'AuditEvents', view: 'AuditEventsOwnerOnly' },
];
