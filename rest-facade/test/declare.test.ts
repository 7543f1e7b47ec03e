/**
 * The operation builders (rest-facade/src/operations/declare.ts) and the typed webhook and claim
 * operations, as pure functions: REST input -> variables, GraphQL answer -> REST answer or AppError.
 * (facade.test.ts drives the same through HTTP with a scripted gateway.)
 */
import { isAppError } from '@pylon/kit';
import { createOp, deleteOp, getOp, listOp, patchOp, updateOp, COUNT_MAX } from '../src/operations/declare.js';
import { claimDevice } from '../src/operations/device-writes.js';
import { createWebhookEndpoint, listWebhookDeliveries, toRestEndpoint } from '../src/operations/webhooks.js';
import type { RestInput } from '../src/operations/types.js';

const input = (over: Partial<RestInput> = {}): RestInput => ({ params: {}, query: {}, body: undefined, ...over });
const failure = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (isAppError(e)) return { code: e.code, message: e.message, field: e.details.field };
    throw e;
  }
  throw new Error('expected an AppError');
};

describe('listOp', () => {
  const op = listOp({ root: 'device', params: { group_id: 'groupId', id: { to: 'id', one: true } }, count: 'total', aliases: { Take: 'take' } });

  test('take/page become limit (one more, to see whether a page follows) and offset; parameters their GraphQL names', () => {
    expect(op.variables(input({ query: { take: 2, page: 3, group_id: 'g', id: 'd1' } }))).toEqual({ groupId: 'g', id: ['d1'], limit: 3, offset: 6 });
    expect(op.variables(input({ query: { Take: 5 } }))).toMatchObject({ limit: 6 });
    expect(op.fieldNames).toMatchObject({ groupId: 'group_id', limit: 'take', offset: 'page' });
    expect(op.accepts.query).toEqual(['group_id', 'id', 'take', 'page', 'Take']);
  });

  test('the look-ahead item is cut; the count field gives the total; keys in snake_case', () => {
    const data = { device: [{ id: 'a', isOnline: true }, { id: 'b' }, { id: 'c' }], total: 7 };
    const answer = op.respond(data, input({ query: { take: 2, page: 0 } }));
    expect(answer.body).toEqual([{ id: 'a', is_online: true }, { id: 'b' }]);
    expect(answer.page).toEqual({ names: { take: 'take', page: 'page' }, take: 2, page: 0, more: true, total: 7 });
  });

  test('without a count the total is known on the last page only; a count selection counts while below COUNT_MAX', () => {
    const plain = listOp({ root: 'device' });
    expect(plain.respond({ device: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] }, input({ query: { take: 2 } })).page).not.toHaveProperty('total');
    expect(plain.respond({ device: [{ id: 'e' }] }, input({ query: { take: 2, page: 2 } })).page).toMatchObject({ more: false, total: 5 });
    const counted = listOp({ root: 'device', count: 'total' });
    expect(counted.respond({ device: [{ id: 'a' }], total: [{ id: 'a' }, { id: 'b' }] }, input({ query: { take: 1 } })).page).toMatchObject({ total: 2 });
    const full = Array.from({ length: COUNT_MAX }, (_, i) => ({ id: String(i) }));
    expect(counted.respond({ device: [{ id: 'a' }, { id: 'b' }], total: full }, input({ query: { take: 1 } })).page).not.toHaveProperty('total');
  });

  test("an answer without the list is a facade defect (INTERNAL), not the caller's", () => {
    expect(failure(() => op.respond({ device: null }, input()))).toMatchObject({ code: 'INTERNAL' });
  });
});

describe('getOp', () => {
  const op = getOp({ root: 'device', what: 'device', query: { snap: 'withSnap' } });
  test('the path id is the variable; an empty answer is 404 naming the id', () => {
    expect(op.variables(input({ params: { id: 'd1' }, query: { snap: true } }))).toEqual({ id: 'd1', withSnap: true });
    expect(op.respond({ device: [{ id: 'd1', lastPing: null }] }, input({ params: { id: 'd1' } })).body).toEqual({ id: 'd1', last_ping: null });
    expect(failure(() => op.respond({ device: [] }, input({ params: { id: 'nope' } })))).toEqual({
      code: 'NOT_FOUND',
      message: "device 'nope' was not found",
      field: undefined,
    });
  });
  test("a nullable root's null is 404; notFound: 'field' names the path parameter instead of quoting the id", () => {
    const byField = getOp({ root: 'override', what: 'override', nullable: true, notFound: 'field' });
    expect(byField.nullableRoots).toEqual(['override']);
    expect(failure(() => byField.respond({ override: null }, input({ params: { id: 'nope' } })))).toEqual({
      code: 'NOT_FOUND',
      message: 'override was not found',
      field: 'id',
    });
  });
});

describe('write operations', () => {
  const fields = { name: 'name', group_id: 'groupId', mac_address: false } as const;
  const create = createOp({ root: 'createDevice', record: 'device', body: { fields }, query: { activation_code: 'registrationKey' } });

  test('create: body properties (and mapped query parameters) become one input; dropped properties are not sent; 201', () => {
    const vars = create.variables(input({ query: { activation_code: 'K1' }, body: { name: 'Lobby', group_id: 'g', mac_address: 'aa', other: 1 } }));
    expect(vars).toEqual({ input: { registrationKey: 'K1', name: 'Lobby', groupId: 'g' } });
    const answer = create.respond({ createDevice: { success: true, error: null, device: { id: 'd1', groupId: 'g' } } }, input());
    expect(answer).toEqual({ status: 201, body: { id: 'd1', group_id: 'g' } });
    expect(create.accepts).toEqual({ query: ['activation_code'], body: ['name', 'group_id', 'mac_address'] });
  });

  test('a failed payload answers its error code with the REST name of the field', () => {
    const data = { createDevice: { success: false, error: 'groupId: no such group', errorCode: 'NOT_FOUND', errorField: 'input.groupId', device: null } };
    expect(failure(() => create.respond(data, input()))).toMatchObject({ code: 'NOT_FOUND', field: 'group_id' });
  });

  test('update: the path id beside the input; PUT resets what the body leaves out; 204 has no body', () => {
    const put = updateOp({ root: 'updateDevice', record: 'device', body: { fields, resetTo: { groupId: null } }, status: 204 });
    expect(put.variables(input({ params: { id: 'd1' }, body: { name: 'x' } }))).toEqual({ id: 'd1', input: { groupId: null, name: 'x' } });
    expect(put.respond({ updateDevice: { success: true, device: { id: 'd1' } } }, input())).toEqual({ status: 204, body: null });
  });

  test('patch: REST paths renamed and camelCased, values converted; delete: 204', () => {
    const patch = patchOp({
      root: 'patchDevice',
      record: 'device',
      renames: { timeZone: 'timezone' },
      value: (p, v) => (p === '/tags' ? String(v).split(',') : v),
    });
    const body = [
      { op: 'replace', path: '/timeZone', value: 'UTC' },
      { op: 'replace', path: '/group_id', value: 'g' },
      { op: 'add', path: '/tags', value: 'a,b' },
    ];
    expect(patch.variables(input({ params: { id: 'd1' }, body }))).toEqual({
      id: 'd1',
      operations: [
        { op: 'replace', path: '/timezone', value: 'UTC' },
        { op: 'replace', path: '/groupId', value: 'g' },
        { op: 'add', path: '/tags', value: ['a', 'b'] },
      ],
    });
    const del = deleteOp({ root: 'deleteDevice' });
    expect(del.respond({ deleteDevice: { success: true } }, input())).toEqual({ status: 204, body: null });
    expect(failure(() => del.respond({ deleteDevice: { success: false, error: 'gone', errorCode: 'NOT_FOUND' } }, input()))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('typed operations declared with their operationId', () => {
  test("claimDevice: body properties become the mutation's own arguments (flat), named in errors by their REST names", () => {
    expect(claimDevice.operationId).toBe('claimDevice');
    expect(claimDevice.variables(input({ body: { code: 'ABC123', timezone: 'Europe/Amsterdam', group_id: 'g' } }))).toEqual({
      code: 'ABC123',
      timeZone: 'Europe/Amsterdam',
      groupId: 'g',
    });
    const data = { claimDevice: { success: false, error: 'no screen shows this code', errorCode: 'NOT_FOUND', errorField: 'code', device: null } };
    expect(failure(() => claimDevice.respond(data as never, input()))).toMatchObject({ code: 'NOT_FOUND', field: 'code' });
  });

  const endpoint = {
    id: 'w1',
    url: 'https://hooks.example/in',
    description: null,
    eventTypes: ['device.offline'],
    deviceIds: [],
    deviceGroupId: null,
    tag: null,
    enabled: true,
    disabledReason: null,
    consecutiveFailures: 0,
    previousSecretExpiresAt: null,
    createdOn: '2026-01-01T00:00:00Z',
    updatedOn: '2026-01-01T00:00:00Z',
  };

  test("createWebhookEndpoint: 201 with the endpoint in rest.yaml's names and the secret, shown this once", () => {
    const ok = { createWebhookEndpoint: { success: true, error: null, errorCode: null, errorField: null, secret: 'whsec_x', endpoint } };
    expect(createWebhookEndpoint.respond(ok, input())).toEqual({ status: 201, body: { ...toRestEndpoint(endpoint), secret: 'whsec_x' } });
    expect(toRestEndpoint(endpoint)).toMatchObject({ event_types: ['device.offline'], consecutive_failures: 0, previous_secret_expires_at: null });
    const refused = {
      createWebhookEndpoint: {
        success: false,
        error: 'url: not allowed',
        errorCode: 'BAD_USER_INPUT',
        errorField: 'input.eventTypes',
        secret: null,
        endpoint: null,
      },
    };
    expect(failure(() => createWebhookEndpoint.respond(refused, input()))).toMatchObject({ code: 'BAD_USER_INPUT', field: 'event_types' });
  });

  test('listWebhookDeliveries: the endpoint id from the path; attempts in snake_case', () => {
    expect(listWebhookDeliveries.variables(input({ params: { id: 'w1' }, query: { take: 10, page: 1 } }))).toMatchObject({ id: 'w1', limit: 11, offset: 10 });
    const delivery = {
      id: 'x',
      endpointId: 'w1',
      eventId: 'e',
      eventType: 'device.offline',
      eventTimestamp: '2026-01-01T00:00:00Z',
      status: 'FAILED',
      attemptCount: 1,
      nextAttemptAt: null,
      createdOn: '2026-01-01T00:00:00Z',
      attempts: [{ at: '2026-01-01T00:00:01Z', statusCode: 500, latencyMs: 12, responseExcerpt: 'oops' }],
    };
    expect(listWebhookDeliveries.respond({ webhookDeliveries: [delivery] }, input({ params: { id: 'w1' } })).body).toEqual([
      {
        id: 'x',
        endpoint_id: 'w1',
        event_id: 'e',
        event_type: 'device.offline',
        event_timestamp: '2026-01-01T00:00:00Z',
        status: 'FAILED',
        attempt_count: 1,
        next_attempt_at: null,
        attempts: [{ at: '2026-01-01T00:00:01Z', status_code: 500, latency_ms: 12, response_excerpt: 'oops' }],
        created_on: '2026-01-01T00:00:00Z',
      },
    ]);
  });
});
