/** GET /account/auditevents and GET /account/auditevents/{eventId} onto Query.auditEvent. */
import { badInput, notFound } from '@pylon/kit';
import { snakeKeys } from '../case.js';
import { GRAPHQL_INT_MAX, recordsAt } from './shape.js';
import type { RestOperation } from './types.js';

/** The spec names these parameters in camelCase; errors name them the same way. */
const auditFieldNames = {
  startDate: 'startDate', endDate: 'endDate', limit: 'limit', offset: 'page', userId: 'userId', eventType: 'eventType',
  httpMethod: 'httpMethod', controllerName: 'controllerName', actionName: 'actionName', ipAddress: 'ipAddress',
  responseCode: 'responseCode', eventId: 'eventId',
} as const;

const TEXT = ['userId', 'eventType', 'httpMethod', 'controllerName', 'actionName', 'startDate', 'endDate', 'ipAddress'] as const;

export const listAuditEvents: RestOperation = {
  variables({ query: q }) {
    const limit = q.limit as number;
    const page = q.page as number;
    if (limit * page > GRAPHQL_INT_MAX) throw badInput('page', `page * limit must be at most ${GRAPHQL_INT_MAX}`);
    const vars: Record<string, unknown> = { limit, offset: limit * page };
    for (const k of TEXT) vars[k] = q[k];
    if (q.responseCode !== undefined) vars.responseCode = Number(q.responseCode);
    return vars;
  },
  respond: (data) => ({ body: recordsAt(data, 'auditEvent').map((e) => snakeKeys(e)) }),
  fieldNames: auditFieldNames,
};

export const getAuditEvent: RestOperation = {
  variables: ({ params }) => ({ eventId: params.eventId }),
  respond(data, { params }) {
    const [event] = recordsAt(data, 'auditEvent');
    if (!event) throw notFound('audit event', String(params.eventId));
    return { body: snakeKeys(event) };
  },
  fieldNames: auditFieldNames,
};
