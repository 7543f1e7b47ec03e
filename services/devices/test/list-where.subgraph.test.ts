/** where / order on displayCommands and alert: known answers, refusals naming the field, tenancy. */
import type { AlertRecord } from '../src/domain/alert.js';
import { ALERTS } from '../src/domain/collections.js';
import { FIXED_NOW, minutesFromNow, principal, startFixture, type Fixture } from './fixtures/subgraph.js';

let f: Fixture;
const NOW = FIXED_NOW;
const at = minutesFromNow;

beforeAll(async () => {
  f = await startFixture({ start: NOW });
  const alerts = f.store.collection<AlertRecord>(ALERTS);
  const base = { ruleSet: '{"match":"any","conditions":[]}', orgId: null, snoozedUntil: null, resolvedOn: null, autoResolved: false };
  // Inserted in this order, so createdOn ascends a1 < a2 < a3 < a4.
  const seed: [string, string, Partial<AlertRecord>][] = [
    ['acc-a', 'a1', { ruleId: 'r-cpu', ruleName: 'Hot CPU', deviceIds: ['d1'], deviceNames: ['One'], reason: 'cpu 95% > 90%' }],
    [
      'acc-a',
      'a2',
      {
        ruleId: 'r-off',
        ruleName: 'Offline',
        deviceIds: ['d2'],
        deviceNames: ['Two'],
        reason: 'no ping for 10 minutes',
        resolvedOn: at(-5),
        autoResolved: true,
      },
    ],
    ['acc-a', 'a3', { ruleId: 'r-cpu', ruleName: 'Hot CPU', deviceIds: ['d2'], deviceNames: ['Two'], reason: 'cpu 99% > 90%', snoozedUntil: at(30) }],
    ['acc-a', 'a4', { ruleId: 'r-disk', ruleName: 'Disk', deviceIds: ['d3'], deviceNames: ['Three'], reason: 'disk 91% > 90%', snoozedUntil: at(-30) }],
    ['acc-b', 'b1', { ruleId: 'r-b', ruleName: 'Hot CPU', deviceIds: ['d9'], deviceNames: ['Nine'], reason: 'cpu 96% > 90%' }],
  ];
  for (const [tenant, id, a] of seed) {
    await alerts.insert(tenant, { ...base, ...a, id } as AlertRecord & { id: string });
    await new Promise((r) => setTimeout(r, 5));
  }
});
afterAll(() => f.close());

type Row = Record<string, unknown>;
async function list(root: string, args: Record<string, unknown>, select: string, who = principal('acc-a')) {
  const r = await f.run(
    `query($where: ${root === 'alert' ? 'AlertFilterInput' : 'DisplayCommandFilterInput'}, $order: [${root === 'alert' ? 'AlertSortInput' : 'DisplayCommandSortInput'}!]) { ${root}(where: $where, order: $order) { ${select} } }`,
    args,
    who,
  );
  return { rows: (r.data?.[root] ?? null) as Row[] | null, errors: r.errors };
}

describe('displayCommands', () => {
  test('where filters on name, command and arg; order sorts in either direction', async () => {
    const { rows } = await list('displayCommands', { where: { command: { startsWith: 'display_' } }, order: [{ command: 'DESC' }] }, 'command');
    expect(rows!.map((r) => r.command)).toEqual(['display_on', 'display_off']);
    const withArg = await list('displayCommands', { where: { arg: { neq: null } } }, 'name arg');
    expect(withArg.rows).toEqual([{ name: 'Set volume', arg: '50' }]);
    const either = await list(
      'displayCommands',
      { where: { or: [{ name: { contains: 'cache' } }, { command: { in: ['reboot'] } }] }, order: [{ name: 'ASC' }] },
      'name',
    );
    expect(either.rows).toEqual([{ name: 'Clear cache' }, { name: 'Reboot device' }]);
    const byName = await list('displayCommands', { order: [{ name: 'ASC' }] }, 'name');
    expect(byName.rows!.map((r) => r.name)).toEqual([...byName.rows!.map((r) => r.name as string)].sort());
    expect(byName.rows).toHaveLength(9);
  });

  test('unknown fields and bad operators are refused naming the field', async () => {
    // The schema refuses unknown input fields before the resolver runs, naming them ...
    const bad = await list('displayCommands', { where: { nope: { eq: 'x' } } }, 'name');
    expect(bad.rows).toBeNull();
    expect(bad.errors?.[0]?.message).toContain('nope');
    // ... and the listing itself refuses them too (callers that bypass the schema), as BAD_USER_INPUT naming the field.
    await expect(f.sg.repo.listCommands('acc-a', { where: { nope: { eq: 'x' } } })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'where.nope' },
    });
    await expect(f.sg.repo.listCommands('acc-a', { order: [{ nope: 'ASC' }] })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'order.nope' },
    });
    await expect(f.sg.repo.listCommands('acc-a', { where: { name: { gt: 'x' } } })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'where.name' },
    });
    const badOrder = await f.run('{ displayCommands(order: [{ colour: ASC }]) { name } }');
    expect(badOrder.errors?.[0]?.message).toContain('colour');
  });

  test('another account sees only its own commands', async () => {
    const { rows } = await list('displayCommands', { where: { command: { eq: 'reboot' } } }, 'command', principal('acc-b'));
    expect(rows).toEqual([{ command: 'reboot' }]);
    const none = await list('displayCommands', { where: { command: { eq: 'no-such-command' } } }, 'command', principal('acc-b'));
    expect(none.rows).toEqual([]);
  });
});

describe('alert', () => {
  const ids = (rows: Row[] | null) => rows!.map((r) => r.id);

  test('default order is newest first; order sorts by any field, either direction', async () => {
    expect(ids((await list('alert', {}, 'id')).rows)).toEqual(['a4', 'a3', 'a2', 'a1']);
    expect(ids((await list('alert', { order: [{ createdOn: 'ASC' }] }, 'id')).rows)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(ids((await list('alert', { order: [{ reason: 'ASC' }] }, 'id')).rows)).toEqual(['a1', 'a3', 'a4', 'a2']);
    expect(ids((await list('alert', { order: [{ alertRule: { name: 'DESC' } }, { id: 'ASC' }] }, 'id')).rows)).toEqual(['a2', 'a1', 'a3', 'a4']);
  });

  test('where on strings, dates, booleans, isActive and the rule', async () => {
    expect(ids((await list('alert', { where: { reason: { startsWith: 'cpu' } } }, 'id')).rows)).toEqual(['a3', 'a1']);
    expect(ids((await list('alert', { where: { autoResolved: { eq: true } } }, 'id')).rows)).toEqual(['a2']);
    expect(ids((await list('alert', { where: { resolvedOn: { lt: at(0) } } }, 'id')).rows)).toEqual(['a2']);
    expect(ids((await list('alert', { where: { snoozedUntil: { gt: '2026-06-01T12:00:00Z' } } }, 'id')).rows)).toEqual(['a3']);
    // a4's snooze lies in the past, so it is active again; a3 is snoozed; a2 resolved.
    expect(ids((await list('alert', { where: { isActive: { eq: true } } }, 'id isActive')).rows)).toEqual(['a4', 'a1']);
    expect(ids((await list('alert', { where: { isActive: { neq: true } } }, 'id')).rows)).toEqual(['a3', 'a2']);
    expect(ids((await list('alert', { where: { alertRule: { id: { eq: 'r-cpu' } }, isActive: { eq: true } } }, 'id')).rows)).toEqual(['a1']);
    expect(ids((await list('alert', { where: { or: [{ alertRule: { name: { eq: 'Disk' } } }, { id: { in: ['a2'] } }] } }, 'id')).rows)).toEqual(['a4', 'a2']);
    // where combines with the other arguments.
    const r = await f.run('{ alert(deviceId: ["d2"], where: { reason: { contains: "99%" } }) { id } }');
    expect(r.data).toEqual({ alert: [{ id: 'a3' }] });
  });

  test('bad fields, operators and values are refused naming the field', async () => {
    const unknown = await list('alert', { where: { colour: { eq: 'red' } } }, 'id');
    expect(unknown.rows).toBeNull();
    expect(unknown.errors?.[0]?.message).toContain('colour');
    const search = (q: Record<string, unknown>) => f.sg.runtime.alerts.search('acc-a', q, at(0));
    await expect(search({ where: { colour: { eq: 'red' } } })).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'where.colour' } });
    await expect(search({ order: [{ isActive: 'ASC' }] })).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'order.isActive' } });
    await expect(search({ where: { isActive: { eq: 'yes' } } })).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'where.isActive' } });
    const badDate = await list('alert', { where: { createdOn: { gt: 'yesterday' } } }, 'id');
    expect(badDate.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'where.createdOn' } });
    const badLimit = await f.run('{ alert(limit: 5000, where: { reason: { contains: "cpu" } }) { id } }');
    expect(badLimit.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit' });
    const badSort = await f.run('{ alert(order: [{ devices: ASC }]) { id } }');
    expect(badSort.errors?.[0]?.message).toContain('devices');
    const deep = await list('alert', { where: { alertRule: { colour: { eq: 'x' } } } }, 'id');
    expect(deep.errors?.[0]?.message).toMatch(/where\.alertRule.*colour/);
    await expect(search({ where: { alertRule: { colour: { eq: 'x' } } } })).rejects.toMatchObject({ details: { field: 'where.alertRule.colour' } });
  });

  test('another account sees only its own alerts', async () => {
    const b = await list('alert', { where: { alertRule: { name: { eq: 'Hot CPU' } } } }, 'id', principal('acc-b'));
    expect(ids(b.rows)).toEqual(['b1']);
    const a = await list('alert', { where: { id: { in: ['b1'] } } }, 'id');
    expect(a.rows).toEqual([]);
  });
});

describe('alertCount (REST X-Total-Count)', () => {
  /** The alert count and the alert listing's length for the same arguments, as `who`. */
  async function alertTotals(args: string, who = principal('acc-a')) {
    const listed = await f.run(`{ alert(${args ? `${args}, ` : ''}limit: 1000) { id } }`, {}, who);
    const counted = await f.run(`{ alertCount${args ? `(${args})` : ''} }`, {}, who);
    expect([listed.errors, counted.errors]).toEqual([undefined, undefined]);
    return { count: counted.data!.alertCount as number, listed: (listed.data!.alert as unknown[]).length };
  }

  test('counts the caller’s alerts only, with the listing’s filters', async () => {
    expect(await alertTotals('')).toEqual({ count: 4, listed: 4 });
    expect(await alertTotals('', principal('acc-b'))).toEqual({ count: 1, listed: 1 });
    expect(await alertTotals('id: ["a1", "b1"]')).toEqual({ count: 1, listed: 1 });
    expect(await alertTotals('activeOnly: true')).toEqual({ count: 2, listed: 2 });
    expect(await alertTotals('resolved: true')).toEqual({ count: 1, listed: 1 });
    expect(await alertTotals('resolved: false')).toEqual({ count: 3, listed: 3 });
    expect(await alertTotals('deviceId: ["d2"]')).toEqual({ count: 2, listed: 2 });
    expect(await alertTotals('where: { id: { in: ["a1", "a3", "b1"] } }')).toEqual({ count: 2, listed: 2 });
    const refused = await f.run('{ alertCount }', {}, principal('acc-a', []));
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});
