/** GET /account/auditevents and GET /account/auditevents/{eventId} onto Query.auditEvent. */
import { getOp, listOp, type FieldMap } from './declare.js';

/** The spec names these parameters in camelCase, like the GraphQL arguments. */
const FILTERS = {
  userId: 'userId',
  eventType: 'eventType',
  httpMethod: 'httpMethod',
  controllerName: 'controllerName',
  actionName: 'actionName',
  startDate: 'startDate',
  endDate: 'endDate',
  ipAddress: 'ipAddress',
  responseCode: { to: 'responseCode', map: (v) => Number(v) },
} as const satisfies FieldMap;

export const listAuditEvents = listOp('listAuditEvents', { root: 'auditEvent', count: 'total', params: FILTERS, paging: { take: 'limit', page: 'page' } });

export const getAuditEvent = getOp('getAuditEvent', { root: 'auditEvent', what: 'audit event', param: 'eventId', variable: 'eventId' });
