/**
 * The one table of what every root field (and every entity a subgraph resolves by reference)
 * requires. Subgraph resolvers guard through it (`guardQuery`, `guardMutation`, `guardEntity`) and
 * the identity subgraph's `permissions` query is computed from it, so what `permissions` reports is
 * what the API enforces. `services/kit/test/unit/operation-rules.test.ts` checks that every root field
 * of the composed schema has a rule and every rule names a field; `gateway/test/access.e2e.test.ts`
 * calls every field with every role.
 */
import { allows, requireRule, type AccessRule, type Requirement } from './access.js';
import type { Principal } from './principal.js';

/** The spec's Queries table, plus the account administration queries of the identity subgraph. */
export const QUERY_RULES = {
  // devices
  device: 'Devices_View',
  pairingRequest: 'Devices_Edit',
  deviceGroups: 'Devices_View',
  displayCommands: 'Devices_View',
  deviceCommands: 'Devices_View',
  alert: 'Alerts_View',
  alertRules: 'Alerts_View',
  // content
  media: 'Files_View',
  mediaGroups: 'Files_View',
  playlist: 'Playlists_View',
  playlistGroups: 'Playlists_View',
  template: 'Templates_View',
  templateGroups: 'Templates_View',
  // scheduling
  schedule: 'Schedules_View',
  scheduleGroups: 'Schedules_View',
  nowPlaying: 'Schedules_View',
  deviceTimeline: 'Schedules_View',
  // datatables
  dataTables: 'DataTables_View',
  dataTable: 'DataTables_View',
  dataTableRows: 'DataTables_View',
  dataTableRow: 'DataTables_View',
  exportDataTableRows: 'DataTables_View',
  // A job's own kind decides further (kit jobs.ts: reading an import needs DataTables_View).
  job: 'Authenticated',
  dataTableRowVersions: 'DataTables_View',
  dataTableRowVersion: 'DataTables_View',
  // analytics
  playLogs: 'Analytics_View',
  pingLogs: 'Analytics_View',
  eventLogs: 'Analytics_View',
  eventMetrics: 'Analytics_View',
  impressions: 'Analytics_View',
  deviceMetrics: 'Analytics_View',
  audienceMetrics: 'Analytics_View',
  mediaPlayStats: 'Analytics_View',
  devicePlayStats: 'Analytics_View',
  deviceMediaPlayStats: 'Analytics_View',
  playStatsByTime: 'Analytics_View',
  eventFlow: 'Analytics_View',
  heatMapData: 'Analytics_View',
  eventHeatMapData: 'Analytics_View',
  mediaImpressions: 'Analytics_View',
  deviceMediaImpressions: 'Analytics_View',
  auditEvent: 'AuditEventsOwnerOnly',
  // identity
  permissions: 'Authenticated',
  user: 'Account_ManageUsers_View',
  account: 'Authenticated',
  organizations: 'Authenticated',
  apiKeys: 'Administrator',
} as const satisfies Record<string, Requirement>;

/**
 * Every GraphQL mutation and what it requires: the spec's Mutations table, plus the account
 * administration mutations of the identity subgraph. `permissions` derives allowedMutations and
 * deniedMutations from this table.
 */
export const MUTATION_RULES = {
  createDataTable: 'DataTables_Edit',
  updateDataTable: 'DataTables_Edit',
  deleteDataTable: 'DataTables_Delete',
  createDataTableRow: 'DataTables_Edit',
  updateDataTableRow: 'DataTables_Edit',
  deleteDataTableRow: 'DataTables_Delete',
  batchCreateDataTableRows: 'DataTables_Edit',
  batchDeleteDataTableRows: 'DataTables_Delete',
  importDataTableRows: 'DataTables_Edit',
  // A job's own kind decides further (kit jobs.ts: cancelling an import needs DataTables_Edit).
  cancelJob: 'Authenticated',
  reorderDataTableRows: 'DataTables_Edit',
  rollbackDataTableRow: 'DataTables_Edit',
  sendDeviceCommand: 'Devices_Edit',
  sendBulkDeviceCommands: 'Devices_Edit',
  createMediaFromUrl: 'Files_Edit',
  updateMedia: 'Files_Edit',
  patchMedia: 'Files_Edit',
  patchPlaylist: 'Playlists_Edit',
  deleteMedia: 'Files_Delete',
  addPlaylistSource: 'Playlists_Edit',
  updatePlaylistSource: 'Playlists_Edit',
  removePlaylistSource: 'Playlists_Edit',
  reorderPlaylistSources: 'Playlists_Edit',
  // Content management (content subgraph; REST media, playlist, template and group endpoints).
  // Scheduling (scheduling subgraph; REST schedule and schedule group endpoints).
  createSchedule: 'Schedules_Edit',
  updateSchedule: 'Schedules_Edit',
  patchSchedule: 'Schedules_Edit',
  deleteSchedule: 'Schedules_Delete',
  createScheduleGroup: 'Schedules_Edit',
  updateScheduleGroup: 'Schedules_Edit',
  deleteScheduleGroup: 'Schedules_Delete',
  createMediaGroup: 'Files_Edit',
  updateMediaGroup: 'Files_Edit',
  deleteMediaGroup: 'Files_Delete',
  createPlaylist: 'Playlists_Edit',
  updatePlaylist: 'Playlists_Edit',
  deletePlaylist: 'Playlists_Delete',
  createPlaylistGroup: 'Playlists_Edit',
  updatePlaylistGroup: 'Playlists_Edit',
  deletePlaylistGroup: 'Playlists_Delete',
  createTemplate: 'Templates_Edit',
  updateTemplate: 'Templates_Edit',
  deleteTemplate: 'Templates_Delete',
  createTemplateGroup: 'Templates_Edit',
  updateTemplateGroup: 'Templates_Edit',
  deleteTemplateGroup: 'Templates_Delete',
  // Device management (devices subgraph; REST device, group, track and alert endpoints).
  createDevice: 'Devices_Edit',
  claimDevice: 'Devices_Edit',
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
} as const satisfies Record<string, Requirement>;

/**
 * Entities other subgraphs reach by key (`_entities`): the same rule as the type's list query.
 * Account and Organization are only ever the caller's own (scoped by account id), so any caller.
 */
export const ENTITY_RULES = {
  Device: 'Devices_View',
  Media: 'Files_View',
  Playlist: 'Playlists_View',
  Template: 'Templates_View',
  User: 'Account_ManageUsers_View',
  Account: 'Authenticated',
  Organization: 'Authenticated',
} as const satisfies Record<string, Requirement>;

/**
 * Fields shown only to callers who hold more than the type's own rule; others read null.
 * Device.registrationKey is the player's credential: a viewer could impersonate the screen.
 */
export const FIELD_RULES = {
  'Device.registrationKey': 'Devices_Edit',
} as const satisfies Record<string, Requirement>;

/**
 * REST operations served by a plain-HTTP handler (`x-pylon-handler` in rest.yaml) rather than
 * through a GraphQL field, keyed by operationId: what each requires.
 */
export const HANDLER_RULES = {
  listReports: 'Analytics_View',
  exportReport: 'Analytics_View',
  adhawkReport: 'Analytics_View',
} as const satisfies Record<string, Requirement>;

export type QueryName = keyof typeof QUERY_RULES;
export type HandlerName = keyof typeof HANDLER_RULES;
export type MutationName = keyof typeof MUTATION_RULES;
export type EntityName = keyof typeof ENTITY_RULES;
export type GuardedField = keyof typeof FIELD_RULES;

/** Throws FORBIDDEN unless the caller may run this query. */
export const guardQuery = (p: Pick<Principal, 'policies' | 'roles'>, field: QueryName): void => requireRule(p, QUERY_RULES[field]);
/** Throws FORBIDDEN unless the caller may run this mutation. */
export const guardMutation = (p: Pick<Principal, 'policies' | 'roles'>, field: MutationName): void => requireRule(p, MUTATION_RULES[field]);
/** Throws FORBIDDEN unless the caller may call this handler-served REST operation. */
export const guardHandler = (p: Pick<Principal, 'policies' | 'roles'>, op: HandlerName): void => requireRule(p, HANDLER_RULES[op]);
/** Throws FORBIDDEN unless the caller may resolve this entity by reference. */
export const guardEntity = (p: Pick<Principal, 'policies' | 'roles'>, type: EntityName): void => requireRule(p, ENTITY_RULES[type]);

/** Whether the caller may read a guarded field (it resolves to null otherwise). */
export const mayReadField = (p: Pick<Principal, 'policies' | 'roles'>, field: GuardedField): boolean => allows(p, FIELD_RULES[field]);

/** Resources reported by `permissions`, with the rule that governs each right. */
export const RESOURCES: readonly { resource: string; view: AccessRule; edit?: AccessRule; delete?: AccessRule }[] = [
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
