/** GET /alerts, GET/PUT/PATCH /alerts/{id} onto Query.alert, updateAlert and patchAlert. */
import { getOp, listOp, patchOp, updateOp } from './declare.js';
import { answers, arrayOf, byId, JSON_PATCH_BODY, jsonBody, md, params, ref, route } from './route.js';
import { gql } from './gql.js';

export const listAlerts = route(
  'GET /alerts',
  {
    tags: ['Alerts'],
    summary: "Alerts of the caller's account, newest first.",
    description: md(
      'active_only=true: only alerts neither resolved nor snoozed (a snooze in the past no longer',
      'counts). resolved=true / false: resolved ones / unresolved ones. device_id is repeatable.',
      'Policy: Alerts_View.',
    ),
    parameters: [
      ...params('IdQuery'),
      {
        name: 'device_id',
        in: 'query',
        style: 'form',
        explode: true,
        schema: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } },
      },
      { name: 'active_only', in: 'query', schema: { type: 'boolean' } },
      { name: 'resolved', in: 'query', schema: { type: 'boolean' } },
      ...params('OrgId', 'Take', 'Page'),
    ],
    responses: answers('One page of alerts.', arrayOf('Alert'), 400, 401, 403, 500),
  },
  listOp('listAlerts', {
    document: gql`
      # GET /alerts (take/page become limit/offset).
      query listAlerts($id: [String!], $deviceId: [String!], $activeOnly: Boolean, $resolved: Boolean, $orgId: String, $limit: Int, $offset: Int) {
        alert(id: $id, deviceId: $deviceId, activeOnly: $activeOnly, resolved: $resolved, orgId: $orgId, limit: $limit, offset: $offset) {
          ...RestAlert
        }
        # The list's total (rest-facade declare.ts 'count'): same filters, counted by the store.
        total: alertCount(id: $id, deviceId: $deviceId, activeOnly: $activeOnly, resolved: $resolved, orgId: $orgId)
      }
    `,
    root: 'alert',
    count: 'total',
    params: { id: { to: 'id', one: true }, device_id: 'deviceId', active_only: 'activeOnly', resolved: 'resolved', org_id: 'orgId' },
  }),
);

export const getAlert = route(
  'GET /alerts/{id}',
  {
    tags: ['Alerts'],
    summary: 'One alert.',
    ...byId('The alert.', 'Alert', 401, 403, 404, 500),
  },
  getOp('getAlert', {
    document: gql`
      # GET /alerts/{id}. An empty list means the id is unknown in the caller's account: 404.
      query getAlert($id: String!) {
        alert(id: [$id], limit: 1) {
          ...RestAlert
        }
      }
    `,
    root: 'alert',
    what: 'alert',
  }),
);

export const updateAlert = route(
  'PUT /alerts/{id}',
  {
    tags: ['Alerts'],
    summary: 'Snooze or resolve an alert.',
    description: md(
      '`snoozed_until` (ISO 8601; null lifts the snooze) and/or `resolved_on` (ISO 8601, not in',
      'the future). A resolved alert cannot be reopened or snoozed (422); resolving it again',
      'changes nothing. Policies: Alerts_View and Devices_Edit.',
    ),
    parameters: params('IdPath'),
    requestBody: jsonBody('AlertUpdate'),
    responses: answers('The alert.', ref('Alert'), 400, 401, 403, 404, 422, 500),
  },
  updateOp('updateAlert', {
    root: 'updateAlert',
    record: 'alert',
    body: { fields: { snoozed_until: 'snoozedUntil', resolved_on: 'resolvedOn' } },
  }),
);

export const patchAlert = route(
  'PATCH /alerts/{id}',
  {
    tags: ['Alerts'],
    summary: 'JSON Patch an alert.',
    description: 'Operations on /snoozed_until and /resolved_on only (remove = null); other paths are refused with 400. Policies Alerts_View and Devices_Edit.',
    parameters: params('IdPath'),
    requestBody: JSON_PATCH_BODY,
    responses: answers('The alert.', ref('Alert'), 400, 401, 403, 404, 422, 500),
  },
  patchOp('patchAlert', { root: 'patchAlert', record: 'alert' }),
);
