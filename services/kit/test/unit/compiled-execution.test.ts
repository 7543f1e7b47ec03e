import { buildSchema, execute, parse, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { createCompiledExecutor, setCompiledExecution } from '../../src/graphql/compiled-execution.js';

// A schema with what subgraph documents use: input objects with variables inside, arguments with
// defaults, lists, enums, nullable and non-null fields, an interface, and resolvers that throw.
const schema: GraphQLSchema = buildSchema(`
  enum Order { ASC DESC }
  input StringFilter { in: [String] eq: String }
  input Where { id: StringFilter name: StringFilter }
  input Patch { name: String note: String }
  input Filter { and: [Filter!] or: [Filter!] name: StringFilter }
  input Holds { filter: Filter }
  interface Named { name: String }
  type Row implements Named { id: ID! name: String n: Int! tags: [String!]! }
  scalar JSON
  type Tree { a: String kids: [Tree] }
  type Query {
    j(v: JSON): String
    tree: Tree
    echo(where: Where, order: [Order!] = [ASC], limit: Int = 10, offset: Int): String
    filtered(where: Filter, holds: Holds): String
    patch(input: Patch!): String
    rows(limit: Int = 3): [Row!]!
    named: [Named]
    failing: Row
    badNonNull: Row!
  }
`);
// Arguments as the resolver sees them: which keys exist, and null versus absent (keys sorted: their order is not a contract).
const sorted = (x: unknown): unknown =>
  x && typeof x === 'object' && !Array.isArray(x)
    ? Object.fromEntries(
        Object.keys(x)
          .sort()
          .map((k) => [k, sorted((x as Record<string, unknown>)[k])]),
      )
    : Array.isArray(x)
      ? x.map(sorted)
      : x;
const show = (v: unknown): string => JSON.stringify(sorted(v), (_k, x: unknown) => (x === undefined ? '<absent>' : x));
const fields = schema.getQueryType()!.getFields();
fields.echo!.resolve = (_s, args) => show(args);
fields.j!.resolve = (_s, args) => show(args);
fields.filtered!.resolve = (_s, args) => show(args);
fields.tree!.resolve = () => ({ a: 'root', kids: [{ a: 'leaf', kids: [] }] });
fields.patch!.resolve = (_s, args: { input: Record<string, unknown> }) => `${Object.keys(args.input).sort().join(',')}=${show(args.input)}`;
fields.rows!.resolve = (_s, args: { limit: number }) =>
  Array.from({ length: args.limit }, (_, i) => ({ id: `r${i}`, name: i % 2 ? null : `Row ${i}`, n: i, tags: i ? ['a', 'b'] : [] }));
fields.named!.resolve = () => [{ name: 'x', id: 'n1', n: 1, tags: [] }, null];
fields.failing!.resolve = () => {
  throw new Error('boom');
};
fields.badNonNull!.resolve = () => ({ id: 'x', name: 'y', n: null, tags: [] });
(schema.getType('Named') as unknown as { resolveType: () => string }).resolveType = () => 'Row';

const WHERE_DOC =
  'query Q($id: [String] $name: String $limit: Int $order: [Order!]) { echo(where: { id: { in: $id } name: { eq: $name } } limit: $limit order: $order) }';

const cases: [string, string, Record<string, unknown>][] = [
  ['missing variables in input object fields are left out, not null', WHERE_DOC, { name: 'a' }],
  ['no variables at all: defaults apply', WHERE_DOC, {}],
  ['every variable given', WHERE_DOC, { id: ['1', '2'], name: 'b', limit: 5, order: ['DESC'] }],
  ['an explicit null stays null', WHERE_DOC, { id: null, name: null, limit: null }],
  ['a patch: an absent field is not a null one', 'query M($name: String $note: String) { patch(input: { name: $name note: $note }) }', { note: null }],
  [
    'an undefined input field (in-process callers) is absent, not null',
    'query M($input: Patch!) { patch(input: $input) }',
    { input: { name: undefined, note: 'x' } },
  ],
  ['undefined inside lists of input objects', 'query M($w: Where) { echo(where: $w) }', { w: { id: { in: ['a', undefined], eq: undefined } } }],
  ['lists of objects, nulls and aliases', '{ rows(limit: 4) { id name n tags } a: rows(limit: 1) { k: id } }', {}],
  ['an interface through fragments', '{ named { name ... on Row { id n } } }', {}],
  ['a resolver error: null and an error with its path', '{ failing { id } rows { id } }', {}],
  ['null in a non-null field propagates', '{ badNonNull { id n } }', {}],
  ['a literal list argument and a default', '{ echo(order: [DESC, ASC]) }', {}],
];

const norm = (r: ExecutionResult) =>
  JSON.parse(JSON.stringify({ data: r.data, errors: r.errors?.map((e) => ({ message: e.message, path: e.path })) })) as unknown;

describe('compiled subgraph execution (graphql-jit) answers what graphql-js answers', () => {
  const compiled = createCompiledExecutor(schema, { compileAfterUses: 1 });
  test.each(cases)('%s', async (_name, query, variables) => {
    const document = parse(query);
    const expected = await execute({ schema, document, variableValues: variables });
    const got = await compiled.execute(document, { query, variables }, {});
    expect(got).toBeDefined();
    expect(norm(got!)).toEqual(norm(expected));
  });

  test('absent and null variables reach the resolver as graphql-js gives them (the divergence this module corrects)', async () => {
    const got = await compiled.execute(parse(WHERE_DOC), { query: WHERE_DOC, variables: { name: 'a' } }, {});
    expect(JSON.parse(got!.data!.echo as string)).toEqual({ where: { id: {}, name: { eq: 'a' } }, order: ['ASC'], limit: 10 });
  });

  test('an operation that is not in the document is left to graphql-js; so is one that does not compile', () => {
    const document = parse('query A { rows { id } } query B { rows { n } }');
    expect(compiled.execute(document, { query: 'query A { rows { id } } query B { rows { n } }', operationName: 'C' }, {})).toBeUndefined();
    expect(compiled.execute(document, { query: 'query A { rows { id } } query B { rows { n } }' }, {})).toBeUndefined();
  });

  test.each([
    ['as written', '"__MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74d(globalThis.__compiledProbe = 1)"'],
    ['through escapes', '"\\u005F_MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74d(globalThis.__compiledProbe = 1)"'],
    ['in a block string', '"""__MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74d(globalThis.__compiledProbe = 1)"""'],
    ['inside an input object', '{ eq: "x __MAGIC_NAN__57f286b9_4c20_487f_b409_79804ddcb4f8" }'],
  ])("graphql-jit's marker strings in a literal (%s) are never compiled into code: graphql-js answers with the text as data", async (_how, literal) => {
    const query = literal.startsWith('{') ? `{ echo(where: { name: ${literal} }) }` : `{ patch(input: { name: ${literal} }) }`;
    const document = parse(query);
    const fresh = createCompiledExecutor(schema, { compileAfterUses: 1 });
    expect(fresh.execute(document, { query, variables: {} }, {})).toBeUndefined();
    expect(fresh.size).toBe(1);
    const expected = await execute({ schema, document });
    expect(JSON.stringify(expected.data)).toContain('__MAGIC_');
    expect((globalThis as { __compiledProbe?: unknown }).__compiledProbe).toBeUndefined();
  });

  // What graphql-jit reads differently or compiles in exponential time is never compiled: graphql-js answers it.
  const deepFragments = (levels: number) =>
    `{ tree { ...F0 } } ${Array.from({ length: levels }, (_, i) => `fragment F${i} on Tree { a: kids { ...F${i + 1} } b: kids { ...F${i + 1} } }`).join(' ')} fragment F${levels} on Tree { a }`;
  test.each([
    ['a marker as an enum-like name in a JSON literal', '{ j(v: __MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74dprobe) }', {}],
    ['a marker as an object key in a JSON literal', '{ j(v: { __MAGIC_NAN__57f286b9_4c20_487f_b409_79804ddcb4f8: 1 }) }', {}],
    ['a __proto__ key in a JSON literal', '{ j(v: { __proto__: { isAdmin: true } }) }', {}],
    ['a variable inside a JSON literal', 'query Q($x: String) { j(v: { a: $x, b: [$x] }) }', { x: 'hello' }],
    ['a variable named __proto__', 'query Q($__proto__: Int) { rows(limit: $__proto__) { id } }', { __proto__: 2 }],
    [
      '@include on a fragment also spread without it',
      'query Q($a: Boolean!) { x: rows(limit: 1) { ...R @include(if: $a) } y: rows(limit: 1) { ...R } } fragment R on Row { id }',
      { a: false },
    ],
    ['@skip on a field', 'query Q($a: Boolean!) { rows(limit: 1) { id @skip(if: $a) n } }', { a: true }],
    ['fragments spreading each other twice per level (exponential to compile)', deepFragments(13), {}],
    // graphql-jit unrolls a variable's input type without a cycle guard (13-30 s before it gave up on a filter).
    ['a variable of a recursive filter type (and/or hold the filter)', 'query Q($w: Filter) { filtered(where: $w) }', { w: { or: [{ name: { eq: 'a' } }] } }],
    ['a variable of a type holding a recursive one', 'query Q($h: Holds) { filtered(holds: $h) }', { h: { filter: { and: [] } } }],
  ])('%s', async (_name, query, variables) => {
    const document = parse(query);
    const fresh = createCompiledExecutor(schema, { compileAfterUses: 1 });
    const t = performance.now();
    expect(fresh.execute(document, { query, variables: JSON.parse(JSON.stringify(variables)) as Record<string, unknown> }, {})).toBeUndefined();
    expect(performance.now() - t).toBeLessThan(2_000); // refused, not compiled (13 levels take seconds to compile)
    expect((await execute({ schema, document, variableValues: JSON.parse(JSON.stringify(variables)) as Record<string, unknown> })).errors).toBeUndefined();
  });

  test('a variable of a non-recursive input object type is compiled and answers what graphql-js answers', async () => {
    const query = 'query Q($w: Where) { echo(where: $w) }';
    const variables = { w: { id: { in: ['1'] }, name: { eq: null } } };
    const fresh = createCompiledExecutor(schema, { compileAfterUses: 1 });
    const r = await fresh.execute(parse(query), { query, variables }, {});
    expect(r).toBeDefined();
    expect(r).toEqual(await execute({ schema, document: parse(query), variableValues: variables }));
  });

  test('an alias __proto__ is answered by graphql-js, as a field like any other', async () => {
    const query = '{ __proto__: rows(limit: 1) { id } rows(limit: 1) { __proto__: id } }';
    const document = parse(query);
    const fresh = createCompiledExecutor(schema, { compileAfterUses: 1 });
    expect(fresh.execute(document, { query, variables: {} }, {})).toBeUndefined();
    expect(JSON.stringify((await execute({ schema, document })).data)).toBe('{"__proto__":[{"id":"r0"}],"rows":[{"__proto__":"r0"}]}');
  });

  test('GRAPHQL_COMPILED off: every document is left to graphql-js, request by request', async () => {
    const query = '{ rows(limit: 1) { id } }';
    const fresh = createCompiledExecutor(schema, { compileAfterUses: 1 });
    expect(fresh.execute(parse(query), { query, variables: {} }, {})).toBeDefined();
    setCompiledExecution(false);
    try {
      expect(fresh.execute(parse(query), { query, variables: {} }, {})).toBeUndefined();
    } finally {
      setCompiledExecution(true);
    }
    expect(fresh.execute(parse(query), { query, variables: {} }, {})).toBeDefined();
  });

  test('a document is compiled from its third use: one-off texts (each a V8 compilation-cache entry once compiled) are answered by graphql-js (issue 34, M1)', async () => {
    const fresh = createCompiledExecutor(schema);
    const query = '{ rows(limit: 2) { id } }';
    expect(fresh.execute(parse(query), { query }, {})).toBeUndefined();
    expect(fresh.execute(parse(query), { query }, {})).toBeUndefined();
    expect(fresh.size).toBe(0);
    const third = await fresh.execute(parse(query), { query }, {});
    expect((third!.data!.rows as unknown[]).length).toBe(2);
    expect(fresh.size).toBe(1);
    // 1,000 distinct documents used once each: none compiled.
    for (let i = 0; i < 1000; i++) {
      const q = `{ rows(limit: ${i % 7}) { id } echo(where: { name: { eq: "d${i}" } }) }`;
      expect(fresh.execute(parse(q), { query: q }, {})).toBeUndefined();
    }
    expect(fresh.size).toBe(1);
  });

  test('compiled documents are bounded', async () => {
    const small = createCompiledExecutor(schema, { maxEntries: 3, compileAfterUses: 1 });
    for (let i = 1; i <= 5; i++) {
      const query = `{ rows(limit: ${i}) { id } }`;
      const r = await small.execute(parse(query), { query }, {});
      expect((r!.data!.rows as unknown[]).length).toBe(i);
    }
    expect(small.size).toBe(3);
  });

  test('compiled documents are bounded by bytes as well (issue 34, M1): 10,000 distinct large documents, heap settles', async () => {
    // Each ~1.7 KB of text (a where literal of 40 names): 500 of them would hold ~85 MB of parsed copies alone.
    const maxBytes = 8 * 2 ** 20;
    const bounded = createCompiledExecutor(schema, { maxBytes, compileAfterUses: 1 });
    const names = (i: number) => Array.from({ length: 40 }, (_, k) => `"n${i}-${k}-${'x'.repeat(20)}"`).join(',');
    const started = Date.now();
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    for (let i = 0; i < 10_000; i++) {
      const query = `{ echo(where: { name: { in: [${names(i)}] } }) }`;
      const r = await bounded.execute(parse(query), { query }, {});
      expect(r?.errors).toBeUndefined();
      expect(bounded.bytes).toBeLessThanOrEqual(maxBytes);
      if (i % 1000 === 999) {
        (globalThis as { gc?: () => void }).gc?.();
        peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      }
    }
    expect(bounded.size).toBeLessThan(500);
    console.log(
      `10,000 distinct documents: ${bounded.size} kept, ~${(bounded.bytes / 2 ** 20).toFixed(1)} MiB estimated, heap growth at most ${(peak / 2 ** 20).toFixed(0)} MiB, ${Date.now() - started} ms`,
    );
    // With gc exposed (node --expose-gc), the retained heap stays within the ceiling; without, the figure is only logged.
    if ((globalThis as { gc?: () => void }).gc) expect(peak).toBeLessThan(64 * 2 ** 20);
  }, 180_000);
});
