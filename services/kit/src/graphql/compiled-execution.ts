/**
 * Subgraph documents compiled to JavaScript (graphql-jit) instead of interpreted by graphql-js's
 * `execute`: the same resolvers and schema, without graphql-js's per-field walk (argument values,
 * type checks, path objects and promise bookkeeping for every field of every row). A 900-row
 * analytics series costs ~1.5 ms less per request; a 50-row list a few hundred µs.
 *
 * What graphql-jit does differently from graphql-js, and what this module does about it:
 * - An input object field whose value is a variable the request did not provide: graphql-js
 *   leaves the field out, graphql-jit sets it to null (`where: { id: { in: $id } }` without `id`
 *   would become a filter on null). The document is compiled without those fields (and without
 *   arguments given such a variable, where graphql-js then applies the argument's default), once
 *   per set of missing variables.
 * - An input object field whose value is `undefined` (in-process callers; JSON cannot carry it):
 *   graphql-js reads it as absent, graphql-jit as null; an undefined list item is null to graphql-js,
 *   graphql-jit leaves it out. The variables are given to graphql-jit as JSON would carry them.
 * - A document graphql-jit cannot compile is answered by graphql-js (`undefined` here).
 * - graphql-jit reads a field without a resolver as a plain property (graphql-js also calls it
 *   when it is a function and awaits it when it is a promise): resolvers here return plain data.
 *
 * - Literal argument values are written into the generated code as JSON, after which graphql-jit
 *   0.8.9 turns its marker strings (`"__MAGIC_DATE__<uuid><text>"`, and the NaN and Infinity
 *   markers) into code: a document whose literal carried the date marker would run
 *   `new Date(<text>)`, i.e. the caller's text, on the server. Such documents, and the others
 *   graphql-jit reads differently or compiles in exponential time, are never compiled
 *   (unsafeToCompile): graphql-js answers them. Variables are not written into the code.
 *
 * Otherwise the generated code is built from the schema and the document's structure only.
 * Compiled documents are kept per text and missing-variable set, at most `maxEntries` of them (the
 * oldest forgotten first); a text is compiled from its third use (COMPILE_AFTER_USES).
 */
import {
  BREAK,
  getNamedType,
  isInputObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isValueNode,
  Kind,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type TypeNode,
} from 'graphql';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { CompiledQuery } from 'graphql-jit';
import { createBoundedCache, PARSED_BYTES_PER_CHAR } from './bounded-cache.js';

/** graphql-jit (about 100 modules) is loaded by the first compile, not by every start. */
let jit: typeof import('graphql-jit') | undefined;
const loadJit = () => (jit ??= createRequire(import.meta.url)('graphql-jit') as typeof import('graphql-jit'));

export interface CompiledExecutor {
  /** The compiled document's answer, or undefined when it does not compile (graphql-js answers then). */
  execute(
    document: DocumentNode,
    request: { query: string; variables?: Record<string, unknown>; operationName?: string },
    context: unknown,
  ): Promise<ExecutionResult> | ExecutionResult | undefined;
  /** Documents compiled and kept. */
  readonly size: number;
  /** Their estimated heap bytes (bounded by maxBytes). */
  readonly bytes: number;
}

/** The operation a request runs: the named one, or the only one. */
function operationOf(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName === undefined ? (ops.length === 1 ? ops[0] : undefined) : ops.find((o) => o.name?.value === operationName);
}

/** The operation's variables without a default that the request does not provide, sorted. */
function missingVariables(op: OperationDefinitionNode, variables: Record<string, unknown> | undefined): string[] {
  const missing: string[] = [];
  for (const def of op.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    if (!def.defaultValue && !(variables && Object.hasOwn(variables, name))) missing.push(name);
  }
  return missing.sort();
}

/** The document without the input object fields and arguments whose value is one of `missing` (graphql-js's reading of them). */
function withoutMissing(document: DocumentNode, missing: ReadonlySet<string>): DocumentNode {
  const given = (node: { value: { kind: Kind; name?: { value: string } } }) =>
    node.value.kind === Kind.VARIABLE && missing.has(node.value.name!.value) ? null : undefined;
  return visit(document, { ObjectField: given, Argument: given });
}

/** graphql-jit's marker prefix (see the top of this file and unsafeToCompile). */
const MARKER = '__MAGIC_';

/**
 * Whether graphql-jit must not compile the document (graphql-js answers it). Only documents it
 * reads exactly as graphql-js does, and whose compile stays linear in their size, are compiled:
 * - a string or a name (an enum value, an object key) containing graphql-jit's marker prefix: its
 *   literal values become code (see the top of this file);
 * - a literal where a custom scalar is expected (JSON, _Any): its parseLiteral result is written
 *   into the code as it is (markers in names, `__proto__` keys setting prototypes) and variables
 *   inside it are dropped;
 * - a response key or a variable named `__proto__`: graphql-jit's object literals would set a
 *   prototype instead of a field or a value;
 * - @skip / @include: graphql-jit marks shared field nodes with the condition, so a field can go
 *   missing where the same fragment or field is used without it;
 * - named fragments: graphql-jit compiles every path through them up front, so fragments that
 *   spread each other twice per level take exponential time (3.7 s for 13 levels in 800 bytes);
 *   without them the generated code is linear in the document (inline fragments are not shared);
 * - a variable whose input type reaches a cycle (every `where` filter: `and`/`or` hold the filter
 *   itself): graphql-jit 0.8.9 writes a variable's coercion code by unrolling its type with no
 *   guard against a cycle, twice per list level, until the stack overflows; that took 13-30 s of
 *   the event loop for one `query($w: PlayLogFilterInput)` before the compile failed.
 */
function unsafeToCompile(schema: GraphQLSchema, document: DocumentNode): boolean {
  let unsafe = false;
  const typeInfo = new TypeInfo(schema);
  const stop = () => {
    unsafe = true;
    return BREAK;
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      enter(node) {
        switch (node.kind) {
          case Kind.STRING:
          case Kind.NAME:
            if (node.value.includes(MARKER)) return stop();
            break;
          case Kind.FIELD:
            if ((node.alias ?? node.name).value === '__proto__') return stop();
            break;
          case Kind.VARIABLE_DEFINITION: {
            if (node.variable.name.value === '__proto__') return stop();
            const type = schema.getType(namedTypeName(node.type));
            if (type && reachesCycle(schema, type)) return stop();
            break;
          }
          case Kind.DIRECTIVE:
            if (node.name.value === 'skip' || node.name.value === 'include') return stop();
            break;
          case Kind.FRAGMENT_SPREAD:
          case Kind.FRAGMENT_DEFINITION:
            return stop();
        }
        if (isValueNode(node) && node.kind !== Kind.VARIABLE) {
          const type = typeInfo.getInputType();
          const named = type ? getNamedType(type) : undefined;
          if (named && isScalarType(named) && !isSpecifiedScalarType(named)) return stop();
        }
        return undefined;
      },
    }),
  );
  return unsafe;
}

/** The named type a variable's type node wraps (`[T!]!` -> T). */
function namedTypeName(node: TypeNode): string {
  return node.kind === Kind.NAMED_TYPE ? node.name.value : namedTypeName(node.type);
}

/** Per schema: whether an input type's fields lead back to a type already on the way (a cycle), by name. */
const cyclic = new WeakMap<GraphQLSchema, Map<string, boolean>>();

/** Whether an input object type reaches a cycle through its fields' types (itself or a type it holds). */
function reachesCycle(schema: GraphQLSchema, type: GraphQLNamedType): boolean {
  let known = cyclic.get(schema);
  if (!known) cyclic.set(schema, (known = new Map()));
  const onPath = new Set<string>();
  const visit = (t: GraphQLNamedType): boolean => {
    if (!isInputObjectType(t)) return false;
    const seen = known.get(t.name);
    if (seen !== undefined) return seen;
    if (onPath.has(t.name)) return true;
    onPath.add(t.name);
    let found = false;
    for (const field of Object.values(t.getFields())) if (visit(getNamedType(field.type))) found = true;
    onPath.delete(t.name);
    // Only a complete answer is kept (a type met again on the path answered "cycle" for this walk).
    known.set(t.name, found);
    return found;
  };
  return visit(type);
}

/** `value` as JSON would carry it: undefined object fields dropped, undefined list items null (copied only where one changes). */
function dropUndefinedFields(value: unknown): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      // An undefined item is null to graphql-js (and in JSON); graphql-jit would skip it.
      const v = value[i] === undefined ? null : dropUndefinedFields(value[i]);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) {
      out ??= { ...value };
      delete out[k];
      continue;
    }
    const d = dropUndefinedFields(v);
    if (d !== v) (out ??= { ...value })[k] = d;
  }
  return out ?? value;
}

/** The request's variables with dropUndefinedFields applied to each value (a variable itself stays as given). */
function variablesOf(variables: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!variables) return {};
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(variables)) {
    const d = dropUndefinedFields(v);
    if (d !== v) (out ??= { ...variables })[k] = d;
  }
  return out ?? variables;
}

/**
 * Whether subgraphs answer with compiled documents at all (GRAPHQL_COMPILED, default on; set by the
 * all-in-one only: distributed subgraph processes always compile): off, every
 * document is answered by graphql-js. Process-wide and read per request, so the benchmark compares
 * both in one run, request by request (bench/src/graphql-compiled.run.ts).
 */
let compiledExecution = true;
export function setCompiledExecution(enabled: boolean): void {
  compiledExecution = enabled;
}

/**
 * A document is compiled on its third use (within the last `maxEntries * 2` distinct texts); before,
 * graphql-js answers it. The code graphql-jit generates (`new Function`) stays in V8's compilation
 * cache after the compiled document leaves the cache below, released only by V8's memory-saving
 * collections: ~1.7 KB per distinct document, which a caller inventing documents grew without bound
 * (issue 34, M1; measured with --trace-gc-object-stats). Documents used again and again (the
 * facades' persisted operations, an app's queries) are what compiling speeds up; one-off texts gain
 * nothing from it.
 */
const COMPILE_AFTER_USES = 3;

export function createCompiledExecutor(
  schema: GraphQLSchema,
  opts: { maxEntries?: number; maxBytes?: number; compileAfterUses?: number } = {},
): CompiledExecutor {
  const maxEntries = opts.maxEntries ?? 500;
  const compileAfter = opts.compileAfterUses ?? COMPILE_AFTER_USES;
  // Bounded by bytes as well as entries (issue 34, M1): large distinct documents would otherwise keep 500 × their size.
  const compiled = createBoundedCache<CompiledQuery | null>({ maxEntries, maxBytes: opts.maxBytes ?? 64 * 2 ** 20 });
  // Uses of documents not compiled yet: a count per text's digest (a few dozen bytes each, whatever
  // the text's size), for the last 2 × maxEntries texts.
  const uses = createBoundedCache<number>({ maxEntries: maxEntries * 2, maxBytes: 2 ** 20 });
  return {
    get size() {
      return compiled.size;
    },
    get bytes() {
      return compiled.bytes;
    },
    execute(document, request, context) {
      if (!compiledExecution) return undefined;
      const op = operationOf(document, request.operationName);
      if (!op) return undefined;
      const missing = missingVariables(op, request.variables);
      const key = `${request.operationName ?? ''}\u0000${missing.join(',')}\u0000${request.query}`;
      let query = compiled.get(key);
      if (query === undefined) {
        if (compileAfter > 1) {
          const digest = createHash('sha256').update(key).digest('base64');
          const used = (uses.get(digest) ?? 0) + 1;
          if (used < compileAfter) {
            uses.set(digest, used, 2 * digest.length);
            return undefined;
          }
        }
        let result: CompiledQuery | ExecutionResult = { errors: [] };
        if (!unsafeToCompile(schema, document)) {
          try {
            // graphql-jit writes into the nodes it compiles: it gets a private copy of the document.
            const own = parse(request.query);
            result = loadJit().compileQuery(schema, missing.length ? withoutMissing(own, new Set(missing)) : own, request.operationName);
          } catch {
            // graphql-js answers (and reports whatever the compiler refused).
          }
        }
        query = 'query' in result && typeof result.query === 'function' ? result : null; // graphql-jit's isCompiledQuery
        // Its own parsed copy, and the generated code (two bytes per character of its source).
        const bytes = key.length * PARSED_BYTES_PER_CHAR + (query ? 2 * query.query.toString().length : 0);
        compiled.set(key, query, bytes);
      }
      return query ? query.query(undefined, context, variablesOf(request.variables)) : undefined;
    },
  };
}
