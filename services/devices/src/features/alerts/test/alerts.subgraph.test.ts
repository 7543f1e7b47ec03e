/** Alert rules and alerts: open once per rule+device, auto-close, snooze, resolve, the sweep, filters, tenancy. */
import { createDevice, principal } from '../../../../test/fixtures/subgraph.js';
import { startPlayerFixture, type PlayerFixture } from '../../../../test/fixtures/player-http.js';

let f: PlayerFixture;
beforeAll(async () => {
  f = await startPlayerFixture();
});
afterAll(() => f.close());

const ALERT = 'id createdOn isActive reason autoResolved snoozedUntil resolvedOn alertRule { id name ruleSet isEnabled } devices { id name }';
const RULE =
  'mutation($i: AlertRuleInput!) { createAlertRule(input: $i) { success error errorCode errorField alertRule { id name ruleSet isEnabled match conditions { type minutes threshold } } } }';
const createRule = async (i: Record<string, unknown>, who = principal('acc-a')) => (await f.run(RULE, { i }, who)).data!.createAlertRule;
const alerts = async (args = '', who = principal('acc-a')) =>
  (await f.run(`{ alert${args ? `(${args})` : ''} { ${ALERT} } }`, {}, who)).data!.alert as Record<string, any>[];
const updateAlert = async (id: string, i: Record<string, unknown>, who = principal('acc-a')) =>
  (
    await f.run(
      `mutation($id: ID!, $i: UpdateAlertInput!) { updateAlert(id: $id, input: $i) { success error errorCode errorField alert { ${ALERT} } } }`,
      { id, i },
      who,
    )
  ).data!.updateAlert;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('rules', () => {
  test('validation names the field', async () => {
    expect(await createRule({ name: 'x', conditions: [] })).toMatchObject({ success: false, errorField: 'conditions' });
    expect(await createRule({ name: 'x', conditions: [{ type: 'OFFLINE' }] })).toMatchObject({ success: false, errorField: 'conditions[0].minutes' });
    expect(await createRule({ name: 'x', conditions: [{ type: 'CPU_ABOVE', threshold: 101 }] })).toMatchObject({
      success: false,
      errorField: 'conditions.0.threshold'.replace('.0', '[0]'),
    });
    expect(await createRule({ name: '', conditions: [{ type: 'CPU_ABOVE', threshold: 90 }] })).toMatchObject({ success: false, errorField: 'name' });
    const r = await f.run(RULE, { i: { name: 'x', conditions: [{ type: 'CPU_ABOVE', threshold: 90 }] } }, principal('acc-a', ['Alerts_View', 'Devices_View']));
    expect(r.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('threshold alerts from pings', () => {
  test('open once per rule and device, close themselves when the condition clears', async () => {
    const rule = (await createRule({ name: 'Hot CPU', conditions: [{ type: 'CPU_ABOVE', threshold: 90 }] })).alertRule;
    expect(rule).toMatchObject({ isEnabled: true, match: 'ANY', conditions: [{ type: 'CPU_ABOVE', threshold: 90, minutes: null }] });
    expect(JSON.parse(rule.ruleSet)).toEqual({ match: 'any', conditions: [{ type: 'cpu_above', threshold: 90 }] });
    const { id, registrationKey } = await createDevice(f, { name: 'Hot one' });
    await f.player.ping(registrationKey, { cpu_usage: 95 });
    await f.player.ping(registrationKey, { cpu_usage: 97 });
    let mine = await alerts(`deviceId: ["${id}"]`);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      isActive: true,
      reason: 'cpu 95% > 90%',
      autoResolved: false,
      resolvedOn: null,
      alertRule: { id: rule.id, name: 'Hot CPU' },
      devices: [{ id, name: 'Hot one' }],
    });
    expect((await alerts('activeOnly: true')).map((a) => a.id)).toContain(mine[0]!.id);

    f.clock.now += 60_000;
    await f.player.ping(registrationKey, { cpu_usage: 20 });
    mine = await alerts(`deviceId: ["${id}"]`);
    expect(mine[0]).toMatchObject({ isActive: false, autoResolved: true, resolvedOn: iso(f.clock.now) });

    await f.player.ping(registrationKey, { cpu_usage: 99 });
    mine = await alerts(`deviceId: ["${id}"]`);
    expect(mine.map((a) => a.isActive)).toEqual([true, false]);
    await f.run('mutation($id: ID!) { deleteAlertRule(id: $id) { success } }', { id: rule.id });
    expect(await alerts(`deviceId: ["${id}"], activeOnly: true`)).toEqual([]);
  });
});

describe('offline alerts from silence (the sweep)', () => {
  test('open after N minutes without a ping, close on the next ping; stale figures close threshold alerts', async () => {
    const { id, registrationKey } = await createDevice(f, { name: 'Silent' }, principal('acc-s'));
    await f.run(RULE, { i: { name: 'Offline 30', conditions: [{ type: 'OFFLINE', minutes: 30 }] } }, principal('acc-s'));
    await f.run(RULE, { i: { name: 'Disk', conditions: [{ type: 'DISK_ABOVE', threshold: 80 }] } }, principal('acc-s'));
    await f.player.ping(registrationKey, { disk_usage: 95 });
    const open = async () => (await alerts('activeOnly: true', principal('acc-s'))).map((a) => a.alertRule.name).sort();
    expect(await open()).toEqual(['Disk']);
    f.clock.now += 31 * 60_000;
    const report = await f.sg.runtime.sweep();
    expect(report).toMatchObject({ opened: 1, closed: 1 }); // offline opens; the disk figure is stale, its alert closes
    expect(await open()).toEqual(['Offline 30']);
    expect((await alerts('activeOnly: true', principal('acc-s')))[0]).toMatchObject({
      devices: [{ id }],
      reason: expect.stringMatching(/^offline for 31 min > 30 min$/),
    });
    expect((await f.sg.runtime.sweep()).opened).toBe(0); // once
    await f.player.ping(registrationKey, { disk_usage: 10 });
    expect(await open()).toEqual([]);
  });
});

describe('snooze and resolve', () => {
  let alertId: string;
  let key: string;
  beforeAll(async () => {
    await createRule({ name: 'Memory', conditions: [{ type: 'MEMORY_ABOVE', threshold: 50 }] }, principal('acc-m'));
    const d = await createDevice(f, { name: 'Mem' }, principal('acc-m'));
    key = d.registrationKey;
    await f.player.ping(key, { memory_usage: 80 });
    alertId = (await alerts('', principal('acc-m')))[0]!.id;
  });
  const m = principal('acc-m');

  test('a snooze hides the alert from activeOnly until it passes', async () => {
    const until = iso(f.clock.now + 3600_000);
    expect(await updateAlert(alertId, { snoozedUntil: until }, m)).toMatchObject({ success: true, alert: { snoozedUntil: until, isActive: false } });
    expect(await alerts('activeOnly: true', m)).toEqual([]);
    f.clock.now += 3601_000;
    expect((await alerts('activeOnly: true', m)).map((a) => a.id)).toEqual([alertId]);
    expect(await updateAlert(alertId, { snoozedUntil: null }, m)).toMatchObject({ success: true, alert: { snoozedUntil: null, isActive: true } });
  });
  test('refusals: bad timestamps, a future resolvedOn, foreign ids', async () => {
    expect(await updateAlert(alertId, { snoozedUntil: 'tomorrow' }, m)).toMatchObject({
      success: false,
      errorCode: 'BAD_USER_INPUT',
      errorField: 'snoozedUntil',
    });
    expect(await updateAlert(alertId, { resolvedOn: iso(f.clock.now + 86_400_000) }, m)).toMatchObject({ success: false, errorField: 'resolvedOn' });
    expect(await updateAlert(alertId, { resolvedOn: iso(f.clock.now) })).toMatchObject({ success: false, errorCode: 'NOT_FOUND' });
    expect(await alerts('', principal('acc-a'))).not.toContainEqual(expect.objectContaining({ id: alertId }));
  });
  test('patchAlert: JSON Patch on snoozedUntil; read-only and prototype paths refused', async () => {
    const patch = async (ops: unknown) =>
      (
        await f.run(
          'mutation($id: ID!, $o: [JsonPatchOperationInput!]!) { patchAlert(id: $id, operations: $o) { success errorCode errorField alert { snoozedUntil } } }',
          { id: alertId, o: ops },
          m,
        )
      ).data!.patchAlert;
    const until = iso(f.clock.now + 600_000);
    expect(await patch([{ op: 'replace', path: '/snoozedUntil', value: until }])).toMatchObject({ success: true, alert: { snoozedUntil: until } });
    expect(await patch([{ op: 'remove', path: '/snoozedUntil' }])).toMatchObject({ success: true, alert: { snoozedUntil: null } });
    for (const path of ['/id', '/createdOn', '/__proto__/x', '/isActive'])
      expect(await patch([{ op: 'replace', path, value: 'x' }])).toMatchObject({ success: false, errorCode: 'BAD_USER_INPUT' });
  });
  test('resolving: inactive, stays latched while the condition holds, cannot be reopened or snoozed', async () => {
    const at = iso(f.clock.now);
    expect(await updateAlert(alertId, { resolvedOn: at }, m)).toMatchObject({ success: true, alert: { resolvedOn: at, isActive: false, autoResolved: false } });
    await f.player.ping(key, { memory_usage: 90 });
    expect(await alerts('', m)).toHaveLength(1); // no new alert while the condition still holds
    expect(await updateAlert(alertId, { resolvedOn: null }, m)).toMatchObject({ success: false, errorCode: 'UNPROCESSABLE' });
    expect(await updateAlert(alertId, { snoozedUntil: iso(f.clock.now + 60_000) }, m)).toMatchObject({ success: false, errorCode: 'UNPROCESSABLE' });
    expect((await alerts('resolved: true', m)).map((a) => a.id)).toEqual([alertId]);
    expect(await alerts('resolved: false', m)).toEqual([]);
    await f.player.ping(key, { memory_usage: 10 }); // clears: the latch goes, the manual resolution stays
    expect((await alerts('', m))[0]).toMatchObject({ resolvedOn: at, autoResolved: false });
    await f.player.ping(key, { memory_usage: 90 });
    expect(await alerts('resolved: false', m)).toHaveLength(1);
  });
  test('disabling a rule closes its alerts; Alerts_View is required to read', async () => {
    const rule = (await alerts('activeOnly: true', m))[0]!.alertRule;
    const r = await f.run(
      'mutation($id: ID!, $i: AlertRuleInput!) { updateAlertRule(id: $id, input: $i) { success alertRule { isEnabled } } }',
      { id: rule.id, i: { name: 'Memory', isEnabled: false, conditions: [{ type: 'MEMORY_ABOVE', threshold: 50 }] } },
      m,
    );
    expect(r.data!.updateAlertRule).toEqual({ success: true, alertRule: { isEnabled: false } });
    expect(await alerts('activeOnly: true', m)).toEqual([]);
    expect((await f.run('{ alert { id } }', {}, principal('acc-m', ['Devices_View']))).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await f.run('{ alertRules { name isEnabled } }', {}, m)).data!.alertRules).toEqual([{ name: 'Memory', isEnabled: false }]);
  });
});

describe('offline alerts and power schedules', () => {
  test('a screen off by its power schedule and silent raises no offline alert; once on, it has the rule minutes from the on edge', async () => {
    const who = principal('acc-p');
    const { id, registrationKey } = await createDevice(f, { name: 'Night off' }, who);
    await f.run(RULE, { i: { name: 'Offline 30', conditions: [{ type: 'OFFLINE', minutes: 30 }] } }, who);
    // The display is off from 19:00 to 07:00 (scheduling answers through the manifest port; the all-in-one wires its devicePower).
    const day = Math.floor(f.clock.now / 86_400_000) * 86_400_000;
    const on = (t: number) => {
      const h = (t - day) / 3_600_000;
      return h >= 7 + 24 || (h >= 7 && h < 19);
    };
    const asked: string[] = [];
    const sweeper = f.replica({
      manifests: {
        manifest: async () => null,
        version: async () => null,
        power: async (d) => {
          asked.push(d.id);
          return on(f.clock.now)
            ? { on: true, since: day + (f.clock.now - day >= 31 * 3_600_000 ? 31 : 7) * 3_600_000 }
            : { on: false, since: day + 19 * 3_600_000 };
        },
      },
    });
    const open = async () => (await alerts('activeOnly: true', who)).map((a) => a.reason);
    f.clock.now = day + 18.5 * 3_600_000;
    await f.player.ping(registrationKey);
    // 23:00 and 06:59: silent for hours, but off by schedule.
    for (const h of [23, 30.98]) {
      f.clock.now = day + h * 3_600_000;
      await sweeper.runtime.sweep();
      expect(await open()).toEqual([]);
    }
    expect(asked).toContain(id);
    // 07:20: on for 20 minutes, not yet 30; 07:31: offline counted from 07:00.
    f.clock.now = day + (31 + 20 / 60) * 3_600_000;
    await sweeper.runtime.sweep();
    expect(await open()).toEqual([]);
    f.clock.now = day + (31 + 31 / 60) * 3_600_000;
    await sweeper.runtime.sweep();
    expect(await open()).toEqual(['offline for 31 min > 30 min']);
  });
});
