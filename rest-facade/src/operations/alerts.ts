/** GET /alerts, GET/PUT/PATCH /alerts/{id} onto Query.alert, updateAlert and patchAlert. */
import { badInput, notFound } from '@pylon/kit';
import { snakeKeys } from '../case.js';
import { GRAPHQL_INT_MAX, one, recordAt, recordsAt, type GqlRecord } from './shape.js';
import { camelPatch, payloadAt } from './mutation-payload.js';
import type { RestOperation } from './types.js';

const toRestAlert = (a: GqlRecord) => snakeKeys(a) as Record<string, unknown>;
const fieldNames = { limit: 'take', offset: 'page', deviceId: 'device_id', activeOnly: 'active_only', orgId: 'org_id' } as const;

export const listAlerts: RestOperation = {
  variables({ query: q }) {
    const take = q.take as number | undefined;
    const page = q.page as number | undefined;
    const offset = take !== undefined && page !== undefined ? take * page : undefined;
    if (offset !== undefined && offset > GRAPHQL_INT_MAX) throw badInput('page', `page * take must be at most ${GRAPHQL_INT_MAX}`);
    return { id: one(q.id as string | undefined), deviceId: q.device_id, activeOnly: q.active_only, resolved: q.resolved, orgId: q.org_id, limit: take, offset };
  },
  respond: (data) => ({ body: recordsAt(data, 'alert').map(toRestAlert) }),
  fieldNames,
};

export const getAlert: RestOperation = {
  variables: ({ params }) => ({ id: params.id }),
  respond(data, { params }) {
    const [alert] = recordsAt(data, 'alert');
    if (!alert) throw notFound('alert', String(params.id));
    return { body: toRestAlert(alert) };
  },
};

export const updateAlert: RestOperation = {
  variables: ({ params, body }) => {
    const b = (body ?? {}) as Record<string, unknown>;
    return { id: params.id, input: { ...('snoozed_until' in b ? { snoozedUntil: b.snoozed_until } : {}), ...('resolved_on' in b ? { resolvedOn: b.resolved_on } : {}) } };
  },
  respond: (data) => ({ body: toRestAlert(recordAt(payloadAt(data, 'updateAlert'), 'alert')) }),
};

export const patchAlert: RestOperation = {
  variables: ({ params, body }) => ({ id: params.id, operations: camelPatch(body) }),
  respond: (data) => ({ body: toRestAlert(recordAt(payloadAt(data, 'patchAlert'), 'alert')) }),
};
