/**
 * The response shape an operation asks for, as one canonical string: fields by response name in
 * first-appearance order (repeated ones merged), with their field name, arguments (sorted by name)
 * and sub-selections; fragments on the parent's own type flattened in place. Two selections with
 * the same shape make graphql-js answer the same keys, in the same order, nested the same way.
 *
 * Anything whose answer could depend on more than the selection text answers null (no shape):
 * a directive anywhere (@skip/@include decide per request), a field of an abstract type (the
 * answer carries a run-time __typename), a fragment on another type, a field the schema lacks.
 */
import {
  getNamedType,
  isAbstractType,
  isObjectType,
  Kind,
  print,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

type Fragments = Record<string, FragmentDefinitionNode>;

interface Entry {
  name: string;
  args: string;
  sets: SelectionSetNode[];
}

/** The fields a selection set answers, merged by response name; false when it has no shape. */
function collect(set: SelectionSetNode, type: GraphQLObjectType, fragments: Fragments, into: Map<string, Entry>, seen: Set<string>): boolean {
  for (const s of set.selections) {
    if (s.directives?.length) return false;
    if (s.kind === Kind.FIELD) {
      const key = s.alias?.value ?? s.name.value;
      const args = [...(s.arguments ?? [])]
        .map((a) => `${a.name.value}:${print(a.value)}`)
        .sort()
        .join(',');
      const hit = into.get(key);
      if (hit && (hit.name !== s.name.value || hit.args !== args)) return false;
      const entry = hit ?? { name: s.name.value, args, sets: [] };
      if (s.selectionSet) entry.sets.push(s.selectionSet);
      into.set(key, entry);
      continue;
    }
    const fragment = s.kind === Kind.FRAGMENT_SPREAD ? fragments[s.name.value] : s;
    if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== type.name)) return false;
    if (s.kind === Kind.FRAGMENT_SPREAD) {
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
    }
    if (!collect(fragment.selectionSet, type, fragments, into, seen)) return false;
  }
  return true;
}

function shapeOf(sets: SelectionSetNode[], type: GraphQLObjectType, fragments: Fragments): string | null {
  const fields = new Map<string, Entry>();
  for (const set of sets) if (!collect(set, type, fragments, fields, new Set())) return null;
  const parts: string[] = [];
  for (const [key, f] of fields) {
    if (f.name === '__typename') {
      parts.push(`${key}:__typename`);
      continue;
    }
    if (f.name.startsWith('__')) return null; // introspection: answered by the gateway itself
    const def = type.getFields()[f.name];
    if (!def) return null;
    const named = getNamedType(def.type);
    if (isAbstractType(named)) return null;
    let sub = '';
    if (isObjectType(named)) {
      const inner = shapeOf(f.sets, named, fragments);
      if (inner === null) return null;
      sub = `{${inner}}`;
    }
    parts.push(`${key}:${f.name}(${f.args})${sub}`);
  }
  return parts.join(' ');
}

/** The canonical shape of a query operation (see the top of this file), or null. */
export function selectionShape(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: Fragments): string | null {
  const root = schema.getQueryType();
  if (operation.operation !== 'query' || !root || operation.directives?.length) return null;
  return shapeOf([operation.selectionSet], root, fragments);
}

/** The fragment definitions of a document's definitions, by name. */
export function fragmentsOf(definitions: readonly { kind: Kind }[]): Fragments {
  const out: Fragments = Object.create(null) as Fragments;
  for (const d of definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) out[(d as FragmentDefinitionNode).name.value] = d as FragmentDefinitionNode;
  return out;
}
