/** GET /alerts, GET/PUT/PATCH /alerts/{id} onto Query.alert, updateAlert and patchAlert. */
import { getOp, listOp, patchOp, updateOp } from './declare.js';

export const listAlerts = listOp('listAlerts', {
  root: 'alert',
  count: 'total',
  params: { id: { to: 'id', one: true }, device_id: 'deviceId', active_only: 'activeOnly', resolved: 'resolved', org_id: 'orgId' },
});

export const getAlert = getOp('getAlert', { root: 'alert', what: 'alert' });

export const updateAlert = updateOp('updateAlert', {
  root: 'updateAlert',
  record: 'alert',
  body: { fields: { snoozed_until: 'snoozedUntil', resolved_on: 'resolvedOn' } },
});

export const patchAlert = patchOp('patchAlert', { root: 'patchAlert', record: 'alert' });
