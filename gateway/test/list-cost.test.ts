/** The list-size-aware cost (gateway/src/list-cost.plugin.ts) over the published API schema (issue 20, finding 5). */
import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { loadApiSchema } from '../../services/kit/src/graphql/api-schema.js';
import { ASSUMED_SIZE, DEFAULT_PAGE, operationCost } from '../src/list-cost.plugin.js';
import { DEFAULT_LIMITS } from '../src/gateway.js';

const schema = loadApiSchema();
function cost(query: string, variables?: Record<string, unknown>): number {
  const doc = parse(query);
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const fragments = Object.fromEntries(doc.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d]] : []))) as Record<
    string,
    FragmentDefinitionNode
  >;
  return operationCost(schema, op, fragments, variables);
}
const FIFTEEN =
  'id name tags groupId groupName orgId timezone notes registrationKey isOnline createdOn updatedOn location { city } deviceType { name } pingData { cpuUsage }';
const MAX = DEFAULT_LIMITS.maxCost;

test("the probe's queries cost more than the limit", () => {
  const aliases = `{ ${Array.from({ length: 10 }, (_, i) => `a${i}: device(limit: 1000) { ${FIFTEEN} }`).join(' ')} }`;
  expect(cost(aliases)).toBe(10 * (1000 + 3 * 1000));
  expect(cost(aliases)).toBeGreaterThan(MAX);
  const nested = '{ schedule(limit: 1000) { id devices { id name pingData { cpuUsage } } } }';
  expect(cost(nested)).toBe(1000 + 1000 * ASSUMED_SIZE * 2);
  expect(cost(nested)).toBeGreaterThan(MAX);
});

test('sizes come from literals and variables, or the default page when absent; nested lists multiply; leaves cost nothing', () => {
  expect(cost('{ device { id name } }')).toBe(DEFAULT_PAGE);
  expect(cost('{ device(limit: 7) { id name tags } }')).toBe(7);
  expect(cost('query($n: Int) { device(limit: $n) { id } }', { n: 300 })).toBe(300);
  expect(cost('query($n: Int) { device(limit: $n) { id } }', {})).toBe(DEFAULT_PAGE);
  expect(cost('{ dataTableRows(tableId: "t", pageSize: 20) { data { id } } }')).toBe(1 + 20);
  expect(cost('{ playlist(limit: 3) { id sources { id } } }')).toBe(3 + 3 * ASSUMED_SIZE);
  // A tree's levels do not multiply (children partition the groups).
  expect(cost('{ deviceGroups(tree: true) { id children { id children { id } } } }')).toBe(3 * ASSUMED_SIZE);
  // Fragments count where they are spread.
  expect(cost('query { device(limit: 5) { ...D } } fragment D on Device { location { city } }')).toBe(5 + 5);
});

test('a size above every maximum is left to its resolver (BAD_USER_INPUT naming the argument)', () => {
  expect(cost('{ device(limit: 99999999) { id location { city } } }')).toBe(0);
});

test('ordinary client queries stay far below the limit', () => {
  for (const q of [
    '{ device(limit: 10) { id name } }',
    `{ device(limit: 100) { ${FIFTEEN} } }`,
    '{ account { id name } permissions { isAdministrator } }',
    '{ schedule { id name devices { id } } }',
    '{ playlist { id name sources { id name } } }',
    '{ dataTables { data { id name columns { key } } } }',
    '{ media(limit: 1000) { id name } }',
  ]) {
    expect([q, cost(q) <= MAX]).toEqual([q, true]);
  }
});
