/** where / order on the auditEvent query (chDB): known answers, refusals naming the field, tenancy. */
import type { AnalyticsStore, AuditEventRecord, Principal } from '@pylon/kit';
import { subgraphLister, subgraphRunner, testPrincipal, testTokens } from '@pylon/kit/testing';
import { createScratchChdbStore } from '@pylon/adapters/chdb';
import { createAnalyticsSubgraph } from '../../../app.js';

let store: AnalyticsStore;
let sg: ReturnType<typeof createAnalyticsSubgraph>;
const run = subgraphRunner(() => sg, testPrincipal('acc-a'));

const event = (id: string, timestamp: string, over: Partial<AuditEventRecord> = {}): AuditEventRecord & Record<string, unknown> => ({
  event_id: id,
  account_id: 'acc-a',
  timestamp,
  event_type: 'Read',
  user_id: 'u1',
  user_name: 'ann@example.test',
  http_method: 'GET',
  controller_name: 'Devices',
  action_name: 'listDevices',
  ip_address: '10.0.0.1',
  response_code: 200,
  interface: 'rest',
  ...over,
});

beforeAll(async () => {
  store = await createScratchChdbStore('pylon-analytics-audit-');
  await store.migrate();
  sg = createAnalyticsSubgraph({ analytics: store, tokens: testTokens });
  await store.insert('audit_events', [
    event('e1', '2026-05-01T10:00:00.000Z'),
    event('e2', '2026-05-01T11:00:00.000Z', { http_method: 'POST', event_type: 'Write', action_name: 'createDevice', response_code: 201 }),
    event('e3', '2026-05-01T12:00:00.000Z', { interface: 'graphql', controller_name: 'GraphQL', action_name: 'Dashboard', response_code: 403 }),
    event('e4', '2026-05-01T13:00:00.000Z', { user_id: '', user_name: '', event_type: 'AuthenticationFailed', response_code: 401, ip_address: '' }),
    event('b1', '2026-05-01T12:30:00.000Z', { account_id: 'acc-b', response_code: 500 }),
  ]);
});
afterAll(() => store.close());

const Q = 'query($where: AuditEventFilterInput, $order: [AuditEventSortInput!]) { auditEvent(where: $where, order: $order) { eventId } }';
const list = subgraphLister(run, testPrincipal('acc-a'));
const ids = async (vars: Record<string, unknown>, who?: Principal) => (await list<{ eventId: string }>('auditEvent', Q, vars, who)).map((e) => e.eventId);

test('endDate is included at the precision written: an event shown as 10:00:00Z is inside 10:00:00Z..10:00:00Z (issue 35)', async () => {
  const r = await run('query($s: String, $e: String) { auditEvent(startDate: $s, endDate: $e) { eventId timestamp } }', {
    s: '2026-05-01T10:00:00Z',
    e: '2026-05-01T10:00:00Z',
  });
  expect(r.errors).toBeUndefined();
  expect((r.data as { auditEvent: unknown[] }).auditEvent).toEqual([{ eventId: 'e1', timestamp: '2026-05-01T10:00:00Z' }]);
});

test('default order is newest first; order sorts by any field in either direction', async () => {
  expect(await ids({})).toEqual(['e4', 'e3', 'e2', 'e1']);
  expect(await ids({ order: [{ timestamp: 'ASC' }] })).toEqual(['e1', 'e2', 'e3', 'e4']);
  expect(await ids({ order: [{ responseCode: 'DESC' }] })).toEqual(['e3', 'e4', 'e2', 'e1']);
  expect(await ids({ order: [{ httpMethod: 'DESC' }, { eventId: 'ASC' }] })).toEqual(['e2', 'e1', 'e3', 'e4']);
});

test('where on strings, numbers, instants, absent values and combinations', async () => {
  expect(await ids({ where: { responseCode: { gte: 400 } } })).toEqual(['e4', 'e3']);
  expect(await ids({ where: { responseCode: { in: [200, 201] }, httpMethod: { neq: 'GET' } } })).toEqual(['e2']);
  expect(await ids({ where: { actionName: { startsWith: 'create' } } })).toEqual(['e2']);
  expect(await ids({ where: { userId: { eq: null } } })).toEqual(['e4']);
  expect(await ids({ where: { timestamp: { gt: '2026-05-01T10:00:00Z', lt: '2026-05-01T13:00:00Z' } } })).toEqual(['e3', 'e2']);
  expect(await ids({ where: { or: [{ interface: { eq: 'graphql' } }, { eventType: { contains: 'Failed' } }] } })).toEqual(['e4', 'e3']);
  // where combines with the other arguments.
  const r = await run('{ auditEvent(httpMethod: "get", where: { controllerName: { nin: ["GraphQL"] } }) { eventId } }');
  expect(r.data).toEqual({ auditEvent: [{ eventId: 'e4' }, { eventId: 'e1' }] });
});

test('bad fields, operators and values are refused naming the field', async () => {
  const unknown = await run(Q, { where: { accountId: { eq: 'acc-b' } } });
  expect(unknown.data?.auditEvent ?? null).toBeNull();
  expect(unknown.errors?.[0]?.message).toContain('accountId');
  const badOp = await run('{ auditEvent(where: { actionName: { gt: "a" } }) { eventId } }');
  expect(badOp.errors?.[0]?.message).toContain('gt');
  const badDate = await run(Q, { where: { timestamp: { gte: 'soon' } } });
  expect(badDate.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'where.timestamp' });
  // Callers that bypass the schema get the same refusal from the query builder.
  const { readAuditEvents } = await import('../read-audit.js');
  await expect(readAuditEvents(store, testPrincipal('acc-a'), { where: { account_id: { eq: 'acc-b' } } })).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    details: { field: 'where.account_id' },
  });
  await expect(readAuditEvents(store, testPrincipal('acc-a'), { where: { actionName: { gt: 'a' } } })).rejects.toMatchObject({
    details: { field: 'where.actionName' },
  });
  await expect(readAuditEvents(store, testPrincipal('acc-a'), { order: [{ account_id: 'ASC' }] })).rejects.toMatchObject({
    details: { field: 'order.account_id' },
  });
});

test('another account sees only its own events', async () => {
  expect(await ids({ where: { responseCode: { gte: 500 } } }, testPrincipal('acc-b'))).toEqual(['b1']);
  expect(await ids({ where: { eventId: { in: ['b1'] } } })).toEqual([]);
  expect(await ids({ where: { responseCode: { gte: 500 } } })).toEqual([]);
});
