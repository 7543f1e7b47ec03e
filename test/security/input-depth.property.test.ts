/**
 * Issue 20, finding 4: no input reaches a stack overflow. For every recursive input type of the
 * published schema (`where` filters and friends, found by walking the SDL, so a new filter cannot be
 * missed), fast-check builds variables nested from just past the cap to thousands of levels deep,
 * along random recursive fields (`and`, `or`, nested filters), and sends them through every query
 * field that reaches that type. Each must be refused as BAD_USER_INPUT with status 400: never
 * INTERNAL_SERVER_ERROR, never "Maximum call stack size exceeded".
 */
import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
} from 'graphql';
import { startHarness, type Harness } from '../../gateway/test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(() => h?.stop());

/** One step down a recursive input: the field name and whether it is a list. */
type Step = { field: string; list: boolean };

const isList = (t: GraphQLInputType): boolean => isListType(isNonNullType(t) ? t.ofType : t);

/** Fields of `t` typed `t` itself (or a list of it): the ways to nest it one level deeper. */
function recursiveSteps(t: GraphQLInputObjectType): Step[] {
  return Object.values(t.getFields()).flatMap((f) => (getNamedType(f.type).name === t.name ? [{ field: f.name, list: isList(f.type) }] : []));
}

/** Builds the nested value iteratively (the test itself must not recurse either). */
function nest(steps: Step[], choices: number[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (const c of choices) {
    const s = steps[c % steps.length]!;
    const child: Record<string, unknown> = {};
    at[s.field] = s.list ? [child] : child;
    at = child;
  }
  return root;
}

/** The path from a root argument's type to `target` through input fields (BFS), or null. */
function pathTo(from: GraphQLInputObjectType, target: string): Step[] | null {
  const queue: [GraphQLInputObjectType, Step[]][] = [[from, []]];
  const seen = new Set<string>();
  while (queue.length) {
    const [t, path] = queue.shift()!;
    if (t.name === target) return path;
    if (seen.has(t.name)) continue;
    seen.add(t.name);
    for (const f of Object.values(t.getFields())) {
      const n = getNamedType(f.type);
      if (isInputObjectType(n)) queue.push([n, [...path, { field: f.name, list: isList(f.type) }]]);
    }
  }
  return null;
}

test('every recursive input type, nested far past the cap, through every query field reaching it, is a 400 BAD_USER_INPUT', async () => {
  const schema = buildSchema(h.gateway.sdl());
  const recursive = Object.values(schema.getTypeMap()).filter(
    (t): t is GraphQLInputObjectType => isInputObjectType(t) && !t.name.startsWith('__') && recursiveSteps(t).length > 0,
  );
  expect(recursive.map((t) => t.name)).toEqual(expect.arrayContaining(['DeviceFilterInput', 'MediaFilterInput']));

  const targets: { type: GraphQLInputObjectType; field: GraphQLField<unknown, unknown>; arg: string; argType: string; prefix: Step[] }[] = [];
  for (const type of recursive) {
    for (const field of Object.values(schema.getQueryType()!.getFields())) {
      for (const arg of field.args) {
        const n = getNamedType(arg.type);
        if (!isInputObjectType(n)) continue;
        const prefix = pathTo(n, type.name);
        if (prefix) targets.push({ type, field, arg: arg.name, argType: String(arg.type), prefix });
      }
    }
  }
  const covered = new Set(targets.map((t) => t.type.name));
  // Every recursive input type is reachable from some query (else the walk above is wrong).
  expect(recursive.map((t) => t.name).filter((n) => !covered.has(n))).toEqual([]);

  for (const t of targets) {
    const steps = recursiveSteps(t.type);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(steps.length - 1), { minLength: 70, maxLength: 4000 }), async (choices) => {
        const deep = nest(steps, choices);
        const value = nest(
          t.prefix,
          t.prefix.map((_, i) => i),
        ) as Record<string, unknown>;
        // Graft the deep value at the end of the prefix path.
        let at: Record<string, unknown> = value;
        for (const s of t.prefix) {
          const next = at[s.field];
          const obj = (Array.isArray(next) ? next[0] : next) as Record<string, unknown>;
          if (s === t.prefix[t.prefix.length - 1]) {
            if (Array.isArray(next)) at[s.field] = [deep];
            else at[s.field] = deep;
          } else at = obj;
        }
        const variable = t.prefix.length ? value : deep;
        const required = t.field.args.filter((a) => isNonNullType(a.type) && a.name !== t.arg);
        // Fields with other required arguments get plausible placeholders (the depth check comes first).
        const decl = [`$v: ${t.argType}`, ...required.map((a) => `$${a.name}: ${String(a.type)}`)].join(', ');
        const args = [`${t.arg}: $v`, ...required.map((a) => `${a.name}: $${a.name}`)].join(', ');
        const vars: Record<string, unknown> = { v: variable };
        for (const a of required) vars[a.name] = getNamedType(a.type).name === 'Int' ? 1 : 'x';
        const selection = isLeafType(getNamedType(t.field.type)) ? '' : '{ __typename }';
        const r = await h.gql(`query(${decl}) { ${t.field.name}(${args}) ${selection} }`, { variables: vars });
        const text = JSON.stringify(r.body);
        expect(text).not.toMatch(/Maximum call stack|INTERNAL_SERVER_ERROR/);
        expect([t.field.name, r.status, r.body.errors?.[0]?.extensions?.code]).toEqual([t.field.name, 400, 'BAD_USER_INPUT']);
      }),
      { numRuns: 4 },
    );
  }
}, 240_000);
