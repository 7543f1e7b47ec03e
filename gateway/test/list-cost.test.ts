/** The list-size-aware cost (gateway/src/list-cost.plugin.ts) over the published API schema (issue 20, finding 5). */
import {
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type OperationDefinitionNode,
} from 'graphql';
import { loadApiSchema } from '../../services/kit/src/graphql/api-schema.js';
import { ASSUMED_SIZE, DEFAULT_PAGE, operationCost } from '../src/list-cost.plugin.js';
import { DEFAULT_LIMITS } from '../src/gateway.js';

const schema = loadApiSchema();
/** `sliceCap`: the limit the gateway passes (a list's own items count at most that). */
function cost(query: string, variables?: Record<string, unknown>, sliceCap?: number): number {
  const doc = parse(query);
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const fragments = Object.fromEntries(doc.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d]] : []))) as Record<
    string,
    FragmentDefinitionNode
  >;
  return operationCost(schema, op, fragments, variables, undefined, sliceCap);
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

/**
 * Issue 35: the SDL's documented maximum of every list ("limit: default 1000, at most 10000"; "as
 * for playLogs" inherits) answers when asked alone, every leaf selected, within the limit the
 * gateway enforces; one more list beside it does not.
 */
test('every documented maximum fits the cost limit when asked alone', () => {
  const query = schema.getQueryType()!;
  const fields = query.getFields();
  const documented = (name: string, seen = new Set<string>()): number | undefined => {
    const text = (fields[name]?.description ?? '').replace(/\s+/g, ' ');
    const own =
      /\b(?:limit|pageSize|take)\b[^.;]*?at most ([\d,]+)/.exec(text) ??
      /at most `?(?:limit|pageSize|take)`? returned \(default [\d,]+, at most ([\d,]+)\)/.exec(text);
    if (own) return Number(own[1]!.replace(/,/g, ''));
    const inherited = /\blimit\b[^.]*? as for (\w+)/.exec(text);
    return inherited && !seen.has(inherited[1]!) ? documented(inherited[1]!, seen.add(name)) : undefined;
  };
  const leaves = (type: GraphQLNamedType): string => {
    const t = getNamedType(type);
    if (!isObjectType(t)) return '';
    const names = Object.values(t.getFields())
      .filter((f) => isLeafType(getNamedType(f.type)) && !f.args.some((a) => isNonNullType(a.type)))
      .map((f) => f.name);
    return names.length ? names.join(' ') : '__typename';
  };
  const checked: string[] = [];
  for (const f of Object.values(fields)) {
    const slicing = f.args.find((a) => ['limit', 'take', 'pageSize'].includes(a.name));
    const max = slicing && documented(f.name);
    if (!slicing || max === undefined) continue;
    const required = f.args
      .filter((a) => isNonNullType(a.type))
      .map((a) => `${a.name}: ${String(getNamedType(a.type)) === 'Int' ? 1 : '"x"'}`)
      .join(', ');
    const args = `(${[required, `${slicing.name}: ${max}`].filter(Boolean).join(', ')})`;
    const named = getNamedType(f.type);
    // A page wrapper (DataTableList) selects its list's leaves.
    const wrapped = isObjectType(named) && named.getFields().data ? `data { ${leaves(named.getFields().data!.type as GraphQLNamedType)} }` : leaves(named);
    const alone = `{ ${f.name}${args} { ${wrapped} } }`;
    expect([alone, cost(alone, undefined, MAX) <= MAX]).toEqual([alone, true]);
    const beside = `{ ${f.name}${args} { ${wrapped} } other: device(limit: 1) { id } }`;
    if (max >= MAX) expect([beside, cost(beside, undefined, MAX) > MAX]).toEqual([beside, true]);
    checked.push(`${f.name}=${max}`);
  }
  expect(checked).toEqual(expect.arrayContaining(['playLogs=10000', 'eventLogs=10000', 'pingLogs=10000', 'device=1000', 'dataTables=100']));
  // The probe's ten aliases of a 1,000-item list still cost more than the limit with the cap.
  const aliases = `{ ${Array.from({ length: 10 }, (_, i) => `a${i}: device(limit: 1000) { id }`).join(' ')} }`;
  expect(cost(aliases, undefined, MAX)).toBeGreaterThan(MAX);
});
