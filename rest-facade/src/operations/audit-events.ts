/** GET /account/auditevents and GET /account/auditevents/{eventId} onto Query.auditEvent. */
import { getOp, listOp, type FieldMap } from './declare.js';
import { answers, arrayOf, md, ref, route } from './route.js';
import { gql } from './gql.js';

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

export const listAuditEvents = route(
  'GET /account/auditevents',
  {
    tags: ['Account'],
    summary: "Audit events of the caller's account.",
    description: md(
      'One event per GraphQL, REST, legacy REST and OAuth request of the account, newest first.',
      'Events are recorded asynchronously and show up within a second or two. Every filter given',
      'must match exactly. Account owners only (policy AuditEventsOwnerOnly; 403 otherwise).',
      'Parameter names are camelCase, as the specification gives them.',
    ),
    parameters: [
      { name: 'userId', in: 'query', description: 'Only events of this user.', schema: { type: 'string', minLength: 1, maxLength: 200 } },
      {
        name: 'eventType',
        in: 'query',
        description: 'Only events of this type: Read, Write, AuthenticationFailed, RateLimited, Login, LoginFailed.',
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      },
      {
        name: 'httpMethod',
        in: 'query',
        description: 'Only requests with this HTTP method.',
        schema: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] },
      },
      {
        name: 'controllerName',
        in: 'query',
        description: 'Only events of this area (graphql, a REST tag such as Devices, a legacy resource, oauth).',
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      },
      {
        name: 'actionName',
        in: 'query',
        description: 'Only events of this operation (a REST operationId, a GraphQL operation name, a legacy operation).',
        schema: { type: 'string', minLength: 1, maxLength: 200 },
      },
      {
        name: 'startDate',
        in: 'query',
        description: 'Events at or after this instant (ISO 8601).',
        schema: { type: 'string', minLength: 10, maxLength: 40 },
      },
      {
        name: 'endDate',
        in: 'query',
        description:
          'Events up to this instant, included at the precision written (ISO 8601; a date alone covers that whole day, a time in whole seconds that second).',
        schema: { type: 'string', minLength: 10, maxLength: 40 },
      },
      { name: 'ipAddress', in: 'query', description: 'Only requests from this address.', schema: { type: 'string', minLength: 1, maxLength: 100 } },
      {
        name: 'responseCode',
        in: 'query',
        description: 'Only requests answered with this HTTP status (e.g. 403).',
        schema: { type: 'string', pattern: '^[1-5][0-9][0-9]$' },
      },
      {
        name: 'limit',
        in: 'query',
        description: 'Maximum number of events (default 100).',
        schema: { type: 'integer', minimum: 0, maximum: 1000, default: 100 },
      },
      {
        name: 'page',
        in: 'query',
        description: '0-based page index; skips page * limit events.',
        schema: { type: 'integer', minimum: 0, maximum: 1000000, default: 0 },
      },
    ],
    responses: answers('One page of events (possibly empty).', arrayOf('AuditEvent'), 400, 401, 403, 429, 500, 503),
  },
  listOp('listAuditEvents', {
    document: gql`
      # GET /account/auditevents: one page of the account's audit events, newest first.
      query listAuditEvents(
        $startDate: String
        $endDate: String
        $limit: Int
        $offset: Int
        $userId: String
        $eventType: String
        $httpMethod: String
        $controllerName: String
        $actionName: String
        $ipAddress: String
        $responseCode: Int
      ) {
        auditEvent(
          startDate: $startDate
          endDate: $endDate
          limit: $limit
          offset: $offset
          userId: $userId
          eventType: $eventType
          httpMethod: $httpMethod
          controllerName: $controllerName
          actionName: $actionName
          ipAddress: $ipAddress
          responseCode: $responseCode
        ) {
          ...RestAuditEvent
        }
        # The list's total (rest-facade declare.ts 'count'): same filters, ids only, up to 1000.
        total: auditEvent(
          startDate: $startDate
          endDate: $endDate
          limit: 1000
          userId: $userId
          eventType: $eventType
          httpMethod: $httpMethod
          controllerName: $controllerName
          actionName: $actionName
          ipAddress: $ipAddress
          responseCode: $responseCode
        ) {
          eventId
        }
      }
    `,
    root: 'auditEvent',
    count: 'total',
    params: FILTERS,
    paging: { take: 'limit', page: 'page' },
  }),
);

export const getAuditEvent = route(
  'GET /account/auditevents/{eventId}',
  {
    tags: ['Account'],
    summary: 'One audit event.',
    description: '404 when the account has no event with this id (events of other accounts are not revealed). Account owners only.',
    parameters: [{ name: 'eventId', in: 'path', required: true, description: 'The event id.', schema: { type: 'string', minLength: 1, maxLength: 100 } }],
    responses: answers('The event.', ref('AuditEvent'), 401, 403, 404, 429, 500, 503),
  },
  getOp('getAuditEvent', {
    document: gql`
      # GET /account/auditevents/{eventId}: one audit event of the account.
      query getAuditEvent($eventId: String!) {
        auditEvent(eventId: [$eventId], limit: 1) {
          ...RestAuditEvent
        }
      }
    `,
    root: 'auditEvent',
    what: 'audit event',
    param: 'eventId',
    variable: 'eventId',
  }),
);
