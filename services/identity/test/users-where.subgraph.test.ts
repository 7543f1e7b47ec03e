/** where / order on the user query: known answers, refusals naming the field, tenancy. */
import type { Principal } from '@pylon/kit';
import { subgraphLister, subgraphRunner, testPrincipal } from '@pylon/kit/testing';
import { identitySubgraphFixture } from './fixtures/subgraph.js';

const f = identitySubgraphFixture('pylon-identity-users-');
const run = subgraphRunner(() => f.sg, testPrincipal('acc-a'));

beforeAll(async () => {
  const sg = f.sg;
  const user = (username: string, first: string, roles: string[], extra: Record<string, unknown> = {}) => ({
    firstName: first,
    lastName: 'Doe',
    email: `${username}@example.test`,
    username,
    usernameKey: username.toLowerCase(),
    roles,
    lastActivity: null,
    ...extra,
  });
  await sg.repo.addUser('acc-a', { id: 'u1', ...user('ann', 'Ann', ['Owner']), lastActivity: '2026-05-01T10:00:00.000Z' });
  await sg.repo.addUser('acc-a', { id: 'u2', ...user('bob', 'Bob', ['Editor', 'API']), orgId: 'org-1', lastActivity: '2026-05-03T10:00:00.000Z' });
  await sg.repo.addUser('acc-a', { id: 'u3', ...user('cyd', 'Cyd', ['Viewer']), email: 'cyd@other.test' });
  await sg.repo.addUser('acc-b', { id: 'u9', ...user('zed', 'Zed', ['Owner']) });
});

const Q = 'query($where: UserFilterInput, $order: [UserSortInput!], $limit: Int) { user(where: $where, order: $order, limit: $limit) { id } }';
const list = subgraphLister(run, testPrincipal('acc-a'));
const ids = async (vars: Record<string, unknown>, who?: Principal) => (await list<{ id: string }>('user', Q, vars, who)).map((u) => u.id);

test('default order is by username; order sorts by any field in either direction', async () => {
  expect(await ids({})).toEqual(['u1', 'u2', 'u3']);
  expect(await ids({ order: [{ username: 'DESC' }] })).toEqual(['u3', 'u2', 'u1']);
  expect(await ids({ order: [{ lastActivity: 'DESC' }, { username: 'ASC' }] })).toEqual(['u2', 'u1', 'u3']);
  expect(await ids({ order: [{ lastName: 'ASC' }, { firstName: 'DESC' }] })).toEqual(['u3', 'u2', 'u1']);
});

test('where on strings, roles, dates and combinations', async () => {
  expect(await ids({ where: { email: { endsWith: '@example.test' } } })).toEqual(['u1', 'u2']);
  expect(await ids({ where: { roles: { some: { eq: 'API' } } } })).toEqual(['u2']);
  expect(await ids({ where: { roles: { none: { in: ['Owner', 'Editor'] } } } })).toEqual(['u3']);
  expect(await ids({ where: { lastActivity: { gte: '2026-05-02T00:00:00Z' } } })).toEqual(['u2']);
  expect(await ids({ where: { orgId: { eq: null } } })).toEqual(['u1', 'u3']);
  expect(await ids({ where: { or: [{ firstName: { startsWith: 'C' } }, { id: { in: ['u1'] } }] } })).toEqual(['u1', 'u3']);
  expect(await ids({ where: { firstName: { ncontains: 'n' } }, limit: 1 })).toEqual(['u2']);
  // where combines with the other arguments.
  const r = await run('{ user(orgId: "org-1", where: { username: { neq: "bob" } }) { id } }');
  expect(r.data).toEqual({ user: [] });
});

test('bad fields, operators and values are refused naming the field', async () => {
  const unknown = await run(Q, { where: { role: { eq: 'Owner' } } });
  expect(unknown.data?.user ?? null).toBeNull();
  expect(unknown.errors?.[0]?.message).toContain('role');
  await expect(f.sg.repo.searchUsers('acc-a', { where: { passwordHash: { eq: 'x' } } })).rejects.toMatchObject({
    code: 'BAD_USER_INPUT',
    details: { field: 'where.passwordHash' },
  });
  await expect(f.sg.repo.searchUsers('acc-a', { order: [{ passwordHash: 'ASC' }] })).rejects.toMatchObject({ details: { field: 'order.passwordHash' } });
  await expect(f.sg.repo.searchUsers('acc-a', { order: [{ roles: 'ASC' }] })).rejects.toMatchObject({ details: { field: 'order.roles' } });
  const badDate = await run(Q, { where: { createdOn: { lt: 'last week' } } });
  expect(badDate.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'where.createdOn' });
  const badLimit = await run(Q, { limit: 1001 });
  expect(badLimit.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit' });
});

test('another account sees only its own users', async () => {
  expect(await ids({ where: { lastName: { eq: 'Doe' } } }, testPrincipal('acc-b'))).toEqual(['u9']);
  expect(await ids({ where: { id: { in: ['u9'] } } })).toEqual([]);
});

test('userCount (REST X-Total-Count): the caller’s users only, with the listing’s filters', async () => {
  const count = async (args: string, who = testPrincipal('acc-a')) => {
    const r = await run(`{ userCount${args ? `(${args})` : ''} }`, {}, who);
    expect(r.errors).toBeUndefined();
    return (r.data as { userCount: number }).userCount;
  };
  expect(await count('')).toBe(3);
  expect(await count('', testPrincipal('acc-b'))).toBe(1);
  expect(await count('id: ["u1", "u9"]')).toBe(1);
  expect(await count('orgId: "org-1"')).toBe(1);
  expect(await count('where: { orgId: { eq: null } }')).toBe((await ids({ where: { orgId: { eq: null } } })).length);
  const refused = await run('{ userCount }', {}, testPrincipal('acc-a', []));
  expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});
