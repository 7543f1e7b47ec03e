/** where / order on organizations, apiKeys, webhookEndpoints and webhookDeliveries: known answers, the limit after the filter, refusals naming the field, tenancy. */
import { firstError, subgraphRunner, testPrincipal } from '@pylon/kit/testing';
import type { OrganizationRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from '../src/domain/records.js';
import { organizationRecord } from './fixtures/records.js';
import { identitySubgraphFixture } from './fixtures/subgraph.js';

const f = identitySubgraphFixture('pylon-identity-lists-');
const A = testPrincipal('acc-a');
const B = testPrincipal('acc-b');
const run = subgraphRunner(() => f.sg, A);
const NOW = Date.now(); // the subgraph's clock (isActive)
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();
const tick = () => new Promise((r) => setTimeout(r, 5)); // createdOn ascends in insertion order

const org = organizationRecord;
const endpoint = (url: string, over: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord => ({
  url,
  description: null,
  eventTypes: [],
  deviceIds: [],
  deviceGroupId: null,
  tag: null,
  enabled: true,
  disabledReason: null,
  consecutiveFailures: 0,
  failingSince: null,
  secrets: [{ secret: 'whsec_test', expiresAt: null }],
  ...over,
});
const delivery = (
  endpointId: string,
  eventId: string,
  eventType: string,
  status: string,
  over: Partial<WebhookDeliveryRecord> = {},
): WebhookDeliveryRecord => ({
  endpointId,
  eventId,
  eventType,
  eventTimestamp: at(0),
  event: {},
  status,
  attempts: [],
  nextAttemptAt: null,
  leaseUntil: null,
  leaseOwner: null,
  ...over,
});

let e1: string, e2: string, e3: string, eb: string;

beforeAll(async () => {
  const sg = f.sg;
  for (const [tenant, id, o] of [
    ['acc-a', 'o1', org('Berlin office', { city: 'Berlin', country: 'DE', timezone: 'Europe/Berlin' })],
    ['acc-a', 'o2', org('Austin HQ', { city: 'Austin', country: 'US', timezone: 'America/Chicago' })],
    ['acc-a', 'o3', org('Bonn lab', { city: 'Bonn', country: 'DE' })],
    ['acc-b', 'ob', org('Berlin B', { city: 'Berlin', country: 'DE' })],
  ] as const) {
    await sg.repo.addOrganization(tenant, { ...o, id } as OrganizationRecord);
    await tick();
  }
  const key = (userId: string, name: string, expiresAt: string | null, revokedAt: string | null) => ({
    userId,
    name,
    hash: `h-${name}`,
    prefix: name.slice(0, 8),
    expiresAt,
    revokedAt,
  });
  for (const [tenant, id, k] of [
    ['acc-a', 'k1', key('u1', 'ci deploy', null, null)],
    ['acc-a', 'k2', key('u2', 'kiosk', at(-60), null)], // expired
    ['acc-a', 'k3', key('u1', 'old laptop', null, at(-120))], // revoked
    ['acc-a', 'k4', key('u2', 'ci nightly', at(60 * 24), null)],
    ['acc-b', 'kb', key('u9', 'ci other', null, null)],
  ] as const) {
    await sg.repo.addApiKey(tenant, { ...k, id } as never);
    await tick();
  }
  e1 = (await sg.webhooks.addEndpoint('acc-a', endpoint('https://a.example.test/hook', { eventTypes: ['device.offline'], description: 'ops' }))).id;
  await tick();
  e2 = (await sg.webhooks.addEndpoint('acc-a', endpoint('https://b.example.test/hook', { enabled: false, disabledReason: 'gone', consecutiveFailures: 12 })))
    .id;
  await tick();
  e3 = (await sg.webhooks.addEndpoint('acc-a', endpoint('https://c.example.test/x', { eventTypes: ['alert.opened', 'device.offline'], tag: 'lobby' }))).id;
  eb = (await sg.webhooks.addEndpoint('acc-b', endpoint('https://b.example.test/other'))).id;
  for (const d of [
    delivery(e1, 'ev1', 'device.offline', 'SUCCEEDED', { eventTimestamp: at(-30) }),
    delivery(e1, 'ev2', 'device.offline', 'FAILED', { eventTimestamp: at(-20), nextAttemptAt: at(5) }),
    delivery(e1, 'ev3', 'device.online', 'DEAD', { eventTimestamp: at(-10) }),
    delivery(e1, 'ev4', 'device.offline', 'SUCCEEDED', { eventTimestamp: at(-5) }),
  ]) {
    await sg.webhooks.queue('acc-a', d);
    await tick();
  }
  await sg.webhooks.queue('acc-b', delivery(eb, 'evb', 'device.offline', 'SUCCEEDED'));
});

async function list(query: string, vars: Record<string, unknown> = {}, who = A): Promise<string[]> {
  const r = await run(query, vars, who);
  if (r.errors) throw new Error(r.errors[0]!.message);
  return (Object.values(r.data as Record<string, { id: string }[]>)[0] ?? []).map((x) => x.id);
}
const refusal = async (query: string, vars: Record<string, unknown> = {}) => firstError(await run(query, vars));

describe('organizations', () => {
  const Q =
    'query($w: OrganizationFilterInput, $o: [OrganizationSortInput!], $l: Int, $id: [String!]) { organizations(where: $w, order: $o, limit: $l, id: $id) { id } }';
  test('where, order, the limit after the filter', async () => {
    expect(await list(Q)).toEqual(['o2', 'o1', 'o3']);
    expect(await list(Q, { w: { country: { eq: 'DE' } } })).toEqual(['o1', 'o3']);
    expect(await list(Q, { w: { city: { startsWith: 'B' } }, o: [{ city: 'DESC' }] })).toEqual(['o3', 'o1']);
    expect(await list(Q, { w: { timezone: { eq: null } } })).toEqual(['o3']);
    expect(await list(Q, { o: [{ createdOn: 'DESC' }], l: 1 })).toEqual(['o3']);
    expect(await list(Q, { w: { country: { eq: 'DE' } }, o: [{ createdOn: 'DESC' }], l: 1 })).toEqual(['o3']);
    expect(await list(Q, { w: { country: { neq: 'DE' } }, l: 1 })).toEqual(['o2']);
    expect(await list(Q, { id: ['o1', 'o2'], w: { name: { contains: 'office' } } })).toEqual(['o1']);
  });
  test('refusals and tenancy', async () => {
    expect((await refusal('{ organizations(where: { colour: { eq: "x" } }) { id } }')).message).toContain('colour');
    expect(await refusal('{ organizations(where: { createdOn: { gt: "soon" } }) { id } }')).toMatchObject({ code: 'BAD_USER_INPUT', field: 'where.createdOn' });
    expect(await list(Q, { w: { id: { eq: 'ob' } } })).toEqual([]);
    expect(await list(Q, { w: { city: { eq: 'Berlin' } } }, B)).toEqual(['ob']);
  });
});

describe('apiKeys', () => {
  const Q = 'query($w: ApiKeyFilterInput, $o: [ApiKeySortInput!], $r: Boolean) { apiKeys(where: $w, order: $o, includeRevoked: $r) { id } }';
  test('where (isActive derived from revokedAt and expiresAt), order; with the other arguments', async () => {
    expect(await list(Q)).toEqual(['k4', 'k2', 'k1']);
    expect(await list(Q, { r: true })).toEqual(['k4', 'k3', 'k2', 'k1']);
    expect(await list(Q, { w: { name: { startsWith: 'ci ' } } })).toEqual(['k4', 'k1']);
    expect(await list(Q, { w: { isActive: { eq: true } }, r: true })).toEqual(['k4', 'k1']);
    expect(await list(Q, { w: { isActive: { eq: false } }, r: true })).toEqual(['k3', 'k2']);
    expect(await list(Q, { w: { expiresAt: { neq: null } }, o: [{ expiresAt: 'ASC' }] })).toEqual(['k2', 'k4']);
    expect(await list(Q, { o: [{ name: 'ASC' }] })).toEqual(['k1', 'k4', 'k2']);
    expect(await list(Q, { w: { userId: { eq: 'u1' } }, r: true })).toEqual(['k3', 'k1']);
  });
  test('refusals (the hash is no field) and tenancy', async () => {
    expect((await refusal('{ apiKeys(where: { hash: { eq: "h-kiosk" } }) { id } }')).message).toContain('hash');
    expect((await refusal('{ apiKeys(where: { isActive: { eq: "yes" } }) { id } }')).message).toContain('Boolean');
    await expect(f.sg.repo.listApiKeys('acc-a', { where: { isActive: { eq: 'yes' } } })).rejects.toMatchObject({ details: { field: 'where.isActive' } });
    expect(await list(Q, { w: { name: { eq: 'ci other' } } })).toEqual([]);
    expect(await list(Q, { w: { name: { startsWith: 'ci' } } }, B)).toEqual(['kb']);
  });
});

describe('webhooks', () => {
  const EQ = 'query($w: WebhookEndpointFilterInput, $o: [WebhookEndpointSortInput!], $l: Int) { webhookEndpoints(where: $w, order: $o, limit: $l) { id } }';
  const DQ =
    'query($e: String!, $w: WebhookDeliveryFilterInput, $o: [WebhookDeliverySortInput!], $l: Int) { webhookDeliveries(endpointId: $e, where: $w, order: $o, limit: $l) { id } }';
  test('webhookEndpoints: where on text, lists, booleans and numbers; order; limit after the filter', async () => {
    expect(await list(EQ)).toEqual([e1, e2, e3]);
    expect(await list(EQ, { w: { enabled: { eq: true } } })).toEqual([e1, e3]);
    expect(await list(EQ, { w: { eventTypes: { some: { eq: 'alert.opened' } } } })).toEqual([e3]);
    expect(await list(EQ, { w: { consecutiveFailures: { gt: 10 } } })).toEqual([e2]);
    expect(await list(EQ, { w: { url: { endsWith: '/hook' } }, o: [{ url: 'DESC' }] })).toEqual([e2, e1]);
    expect(await list(EQ, { w: { enabled: { eq: true } }, o: [{ createdOn: 'DESC' }], l: 1 })).toEqual([e3]);
  });
  test('webhookDeliveries: where on status, type and times; order; limit after the filter', async () => {
    const id = (ev: string) => `${ev}.${e1}`;
    expect(await list(DQ, { e: e1 })).toEqual([id('ev4'), id('ev3'), id('ev2'), id('ev1')]);
    expect(await list(DQ, { e: e1, w: { status: { eq: 'SUCCEEDED' } } })).toEqual([id('ev4'), id('ev1')]);
    expect(await list(DQ, { e: e1, w: { eventType: { neq: 'device.online' } }, o: [{ eventTimestamp: 'ASC' }], l: 2 })).toEqual([id('ev1'), id('ev2')]);
    expect(await list(DQ, { e: e1, w: { nextAttemptAt: { gt: at(0) } } })).toEqual([id('ev2')]);
    expect(await list(DQ, { e: e1, w: { status: { in: ['FAILED', 'DEAD'] } }, l: 1 })).toEqual([id('ev3')]);
  });
  test('refusals and tenancy', async () => {
    expect((await refusal('{ webhookEndpoints(where: { secrets: { eq: "x" } }) { id } }')).message).toContain('secrets');
    expect(await refusal(`{ webhookDeliveries(endpointId: "${e1}", where: { eventTimestamp: { lt: "later" } }) { id } }`)).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'where.eventTimestamp',
    });
    expect(await list(EQ, { w: { url: { contains: 'other' } } })).toEqual([]);
    expect(await list(EQ, { w: { url: { contains: 'other' } } }, B)).toEqual([eb]);
    expect(await list(DQ, { e: eb, w: { status: { eq: 'SUCCEEDED' } } })).toEqual([]);
  });
});
