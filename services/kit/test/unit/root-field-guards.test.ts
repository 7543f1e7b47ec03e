/**
 * Authorization wired once (issue 36): `createSubgraph` wraps every Query and Mutation root field
 * with its `@policy` rule, and every entity it resolves by key with its ENTITY_RULES rule, so a
 * resolver that writes no guard is still refused for a caller who lacks the rule, and a root field
 * or an entity with no rule stops the build instead of running open.
 */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { buildSchema, parse } from 'graphql';
import { InternalTokens, type Principal } from '../../src/auth/principal.js';
import { createSubgraph, guardEntityReferences, guardRootFields } from '../../src/graphql/subgraph.js';

const tokens = new InternalTokens('root-field-guards-test-secret-0123456789');
const caller = (policies: Principal['policies'], roles = ['Viewer']): Principal => ({
  accountId: 'acc-a',
  userId: 'u1',
  userName: 'u1@example.com',
  roles,
  policies,
  isOwner: false,
  via: 'api-key',
});

// Resolvers as a subgraph writes them now: no guard call of their own.
const subgraph = createSubgraph({
  name: 'scheduling',
  tokens,
  resolvers: { Query: { scheduleCount: () => 7 }, Mutation: { deleteSchedule: () => ({ success: true }) } },
});
const run = async (query: string, p: Principal) => subgraph.execute({ query }, await subgraph.createContext(await tokens.sign(p)));

test('a query runs only for callers holding its @policy rule', async () => {
  expect((await run('{ scheduleCount }', caller(['Schedules_View']))).data).toEqual({ scheduleCount: 7 });
  const refused = await run('{ scheduleCount }', caller(['Devices_View']));
  expect(refused.data).toEqual(null);
  expect(refused.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([['this operation requires the Schedules_View policy', 'FORBIDDEN']]);
});

test('a mutation likewise: the resolver is never reached without the rule', async () => {
  expect((await run('mutation { deleteSchedule(id: "s1") { success } }', caller(['Schedules_View', 'Schedules_Delete']))).data).toEqual({
    deleteSchedule: { success: true },
  });
  const refused = await run('mutation { deleteSchedule(id: "s1") { success } }', caller(['Schedules_View', 'Schedules_Edit']));
  expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
  expect(refused.data).toEqual({ deleteSchedule: null });
});

test('a root field without a rule stops the build, named', () => {
  const schema = buildSchema('type Query { scheduleCount: Int  notInTheTable: Int }');
  expect(() => guardRootFields(schema, 'test')).toThrow('test: Query.notInTheTable has no @policy rule');
});

describe('entity references (_entities)', () => {
  // The devices subgraph with a Device reference resolver that writes no guard of its own.
  const devices = createSubgraph({
    name: 'devices',
    tokens,
    resolvers: { Device: { __resolveReference: (ref: { id: string }) => ({ id: ref.id, name: `screen ${ref.id}` }) } },
  });
  const entities = async (p: Principal) =>
    devices.execute(
      { query: 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Device { id name } } }', variables: { r: [{ __typename: 'Device', id: 'd1' }] } },
      await devices.createContext(await tokens.sign(p)),
    );

  test('a reference resolves only for callers holding the entity rule (Device: Devices_View)', async () => {
    expect((await entities(caller(['Devices_View']))).data).toEqual({ _entities: [{ id: 'd1', name: 'screen d1' }] });
    const refused = await entities(caller(['Files_View']));
    expect(refused.errors?.map((e) => [e.message, e.extensions?.code])).toEqual([['this operation requires the Devices_View policy', 'FORBIDDEN']]);
    // A plain (not async) reference resolver: the refusal fails the whole answer, as the hand-written guard did.
    expect(refused.data).toEqual(null);
  });

  const sdl = (type: string, key: string) =>
    parse(
      `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])\ntype Query { scheduleCount: Int }\ntype ${type} ${key} { id: ID! }`,
    );

  test('a resolvable entity without a rule stops the build, named; a reference stub (resolvable: false) needs none', () => {
    expect(() => guardEntityReferences(buildSubgraphSchema({ typeDefs: sdl('Gadget', '@key(fields: "id")') }), 'test')).toThrow(
      'test: entity Gadget has no rule in ENTITY_RULES',
    );
    expect(() => guardEntityReferences(buildSubgraphSchema({ typeDefs: sdl('Gadget', '@key(fields: "id", resolvable: false)') }), 'test')).not.toThrow();
  });
});
