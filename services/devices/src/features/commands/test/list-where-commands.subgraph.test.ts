/** where / order on deviceCommands (status: the effective one) and alertRules: known answers, the limit after the filter, refusals naming the field, tenancy. */
import { DEVICE_COMMANDS } from '../../../domain/collections.js';
import type { DeviceCommandRecord } from '../../../domain/command.js';
import { createDevice, FIXED_NOW, minutesFromNow, principal, startFixture, type Fixture } from '../../../../test/fixtures/subgraph.js';

let f: Fixture;
let dA: string;
let dB: string;
const NOW = FIXED_NOW;
const at = minutesFromNow;

beforeAll(async () => {
  f = await startFixture({ start: NOW });
  dA = (await createDevice(f, { name: 'Commands A' })).id;
  dB = (await createDevice(f, { name: 'Commands B' }, principal('acc-b'))).id;
  const commands = f.store.collection<DeviceCommandRecord>(DEVICE_COMMANDS);
  const cmd = (deviceId: string, command: string, queued: number, over: Partial<DeviceCommandRecord> = {}): DeviceCommandRecord => ({
    deviceId,
    command,
    arg: null,
    status: 'queued',
    queuedAt: at(queued),
    deliveredAt: null,
    completedAt: null,
    expiresAt: at(60),
    error: null,
    sentBy: 'u1',
    ...over,
  });
  const seed: [string, string, DeviceCommandRecord][] = [
    ['acc-a', 'c1', cmd(dA, 'restart', -10)], // QUEUED
    ['acc-a', 'c2', cmd(dA, 'volume', -9, { arg: '40', expiresAt: at(-1) })], // queued past expiry: EXPIRED
    ['acc-a', 'c3', cmd(dA, 'reboot', -8, { status: 'delivered', deliveredAt: at(-7) })], // DELIVERED
    ['acc-a', 'c4', cmd(dA, 'refresh', -7, { status: 'acknowledged', deliveredAt: at(-6), completedAt: at(-5) })],
    ['acc-a', 'c5', cmd(dA, 'screenshot', -6, { status: 'failed', deliveredAt: at(-6), completedAt: at(-5.5), error: 'no screen attached' })],
    ['acc-a', 'c6', cmd(dA, 'clear_cache', -5, { status: 'expired', completedAt: at(-4), expiresAt: at(-4) })],
    ['acc-b', 'b1', cmd(dB, 'restart', -3)],
  ];
  for (const [tenant, id, c] of seed) await commands.insert(tenant, { ...c, id } as DeviceCommandRecord & { id: string });
});
afterAll(() => f.close());

describe('deviceCommands', () => {
  const Q =
    'query($d: String!, $w: DeviceCommandFilterInput, $o: [DeviceCommandSortInput!], $s: [DeviceCommandStatus!], $l: Int) { deviceCommands(deviceId: $d, where: $w, order: $o, status: $s, limit: $l) { id status } }';
  const ids = async (vars: Record<string, unknown>, who = principal('acc-a'), d = dA) => {
    const r = await f.run(Q, { d, ...vars }, who);
    expect(r.errors).toBeUndefined();
    return (r.data!.deviceCommands as { id: string }[]).map((c) => c.id);
  };

  test('without where / order: newest first, as before', async () => {
    expect(await ids({})).toEqual(['c6', 'c5', 'c4', 'c3', 'c2', 'c1']);
    expect(await ids({ s: ['QUEUED'] })).toEqual(['c1']);
    expect(await ids({ s: ['EXPIRED'] })).toEqual(['c6', 'c2']);
  });

  test('where on the effective status, text and dates; order', async () => {
    expect(await ids({ w: { status: { eq: 'EXPIRED' } } })).toEqual(['c6', 'c2']);
    expect(await ids({ w: { status: { neq: 'EXPIRED' } } })).toEqual(['c5', 'c4', 'c3', 'c1']);
    expect(await ids({ w: { status: { nin: ['EXPIRED', 'QUEUED'] } }, o: [{ command: 'ASC' }] })).toEqual(['c3', 'c4', 'c5']);
    expect(await ids({ w: { status: { in: ['QUEUED', 'DELIVERED'] } } })).toEqual(['c3', 'c1']);
    expect(await ids({ w: { command: { startsWith: 're' } } })).toEqual(['c4', 'c3', 'c1']);
    expect(await ids({ w: { error: { contains: 'screen' } } })).toEqual(['c5']);
    expect(await ids({ w: { arg: { neq: null } } })).toEqual(['c2']);
    expect(await ids({ w: { completedOn: { gte: at(-5) } } })).toEqual(['c6', 'c4']);
    expect(await ids({ w: { or: [{ command: { eq: 'volume' } }, { expiresOn: { lt: at(-2) } }] } })).toEqual(['c6', 'c2']);
    expect(await ids({ o: [{ queuedOn: 'ASC' }] })).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    // where and the status argument combine.
    expect(await ids({ s: ['EXPIRED', 'FAILED'], w: { command: { neq: 'screenshot' } } })).toEqual(['c6', 'c2']);
  });

  test('the limit comes after the filter and the sort', async () => {
    expect(await ids({ w: { status: { eq: 'EXPIRED' } }, l: 1 })).toEqual(['c6']);
    expect(await ids({ w: { status: { neq: 'EXPIRED' } }, o: [{ command: 'DESC' }], l: 2 })).toEqual(['c5', 'c1']);
  });

  test('refusals name the field', async () => {
    const wrongEnum = await f.run(Q, { d: dA, w: { status: { eq: 'LOST' } } });
    expect(wrongEnum.errors?.[0]?.message).toContain('LOST');
    const unknown = await f.run(Q, { d: dA, w: { colour: { eq: 'x' } } });
    expect(unknown.errors?.[0]?.message).toContain('colour');
    const badDate = await f.run(Q, { d: dA, w: { queuedOn: { gt: 'yesterday' } } });
    expect(badDate.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'where.queuedOn' });
    // Callers that bypass the schema are refused by the listing itself.
    const list = (q: Record<string, unknown>) => f.sg.runtime.commands.listForDevice('acc-a', dA, { limit: 10, nowIso: at(0), ...q });
    await expect(list({ where: { status: { gt: 'QUEUED' } } })).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'where.status' } });
    await expect(list({ where: { status: { eq: 'LOST' } } })).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'where.status' } });
    await expect(list({ order: [{ colour: 'ASC' }] })).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'order.colour' } });
  });

  test('never another account', async () => {
    expect(await ids({ w: { command: { eq: 'restart' } } }, principal('acc-b'), dB)).toEqual(['b1']);
    expect(await ids({ w: { id: { eq: 'b1' } } })).toEqual([]);
    const foreign = await f.run(Q, { d: dB, w: { status: { eq: 'QUEUED' } } });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('alertRules', () => {
  const RULE = 'mutation($i: AlertRuleInput!) { createAlertRule(input: $i) { success error } }';
  const Q = 'query($w: AlertRuleFilterInput, $o: [AlertRuleSortInput!]) { alertRules(where: $w, order: $o) { name } }';
  const names = async (vars: Record<string, unknown>, who = principal('acc-a')) => {
    const r = await f.run(Q, vars, who);
    expect(r.errors).toBeUndefined();
    return (r.data!.alertRules as { name: string }[]).map((x) => x.name);
  };
  beforeAll(async () => {
    const create = async (i: Record<string, unknown>, who = principal('acc-a')) =>
      expect((await f.run(RULE, { i }, who)).data!.createAlertRule).toMatchObject({ success: true });
    await create({ name: 'Hot CPU', conditions: [{ type: 'CPU_ABOVE', threshold: 90 }] });
    await create({ name: 'Offline', isEnabled: false, conditions: [{ type: 'OFFLINE', minutes: 10 }] });
    await create({
      name: 'Hot and full',
      match: 'ALL',
      conditions: [
        { type: 'CPU_ABOVE', threshold: 80 },
        { type: 'DISK_ABOVE', threshold: 90 },
      ],
    });
    await create({ name: 'B rule', conditions: [{ type: 'CPU_ABOVE', threshold: 90 }] }, principal('acc-b'));
  });

  test('by name without where / order; where on name, isEnabled and match; order', async () => {
    expect(await names({})).toEqual(['Hot CPU', 'Hot and full', 'Offline']);
    expect(await names({ w: { isEnabled: { eq: false } } })).toEqual(['Offline']);
    expect(await names({ w: { match: { eq: 'ALL' } } })).toEqual(['Hot and full']);
    expect(await names({ w: { match: { neq: 'ALL' }, name: { startsWith: 'Hot' } } })).toEqual(['Hot CPU']);
    expect(await names({ o: [{ isEnabled: 'ASC' }, { name: 'DESC' }] })).toEqual(['Offline', 'Hot and full', 'Hot CPU']);
  });

  test('refusals and tenancy', async () => {
    expect((await f.run(Q, { w: { match: { eq: 'SOME' } } })).errors?.[0]?.message).toContain('SOME');
    expect((await f.run(Q, { w: { conditions: { eq: 'x' } } })).errors?.[0]?.message).toContain('conditions');
    await expect(f.sg.runtime.alerts.listRules('acc-a', { where: { match: { eq: 'some' } } })).rejects.toMatchObject({ details: { field: 'where.match' } });
    await expect(f.sg.runtime.alerts.listRules('acc-a', { where: { name: { gt: 'a' } } })).rejects.toMatchObject({ details: { field: 'where.name' } });
    expect(await names({ w: { name: { eq: 'B rule' } } })).toEqual([]);
    expect(await names({ w: { isEnabled: { eq: true } } }, principal('acc-b'))).toEqual(['B rule']);
  });
});
