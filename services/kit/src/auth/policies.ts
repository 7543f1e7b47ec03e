/** The spec's policies, given exactly, then Pylon's own (webhook endpoints and the live event stream). */
export const POLICIES = [
  'Devices_View',
  'Devices_Edit',
  'Devices_Delete',
  'Files_View',
  'Files_Edit',
  'Files_Delete',
  'Playlists_View',
  'Playlists_Edit',
  'Playlists_Delete',
  'Templates_View',
  'Templates_Edit',
  'Templates_Delete',
  'Schedules_View',
  'Schedules_Edit',
  'Schedules_Delete',
  'Alerts_View',
  'DataTables_View',
  'DataTables_Edit',
  'DataTables_Delete',
  'Analytics_View',
  'Account_ManageUsers_View',
  'AuditEventsOwnerOnly',
  'Webhooks_View',
  'Webhooks_Edit',
  // Starting and cancelling emergency overrides: its own right, not implied by schedule editing.
  'Overrides_Edit',
] as const;

export type Policy = (typeof POLICIES)[number];

export const isPolicy = (p: string): p is Policy => (POLICIES as readonly string[]).includes(p);
