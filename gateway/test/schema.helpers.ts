/**
 * Builds a minimal valid call for any root field from the schema's introspection: every required
 * argument gets a placeholder of its type (input objects recursively), and the selection is just
 * `__typename`. Policy tests use it to call every query and mutation the schema has, so a field
 * added later is covered without editing the test.
 */
interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface InputValue {
  name: string;
  type: TypeRef;
  defaultValue: string | null;
}
interface FullType {
  kind: string;
  name: string;
  fields: { name: string; args: InputValue[]; type: TypeRef }[] | null;
  inputFields: InputValue[] | null;
  enumValues: { name: string }[] | null;
}
export interface Introspection {
  types: Map<string, FullType>;
  query: FullType;
  mutation: FullType | undefined;
}

const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
export const INTROSPECTION_QUERY = `{ __schema { queryType { name } mutationType { name } types { kind name
  fields { name args { name defaultValue type { ${TYPE_REF} } } type { ${TYPE_REF} } }
  inputFields { name defaultValue type { ${TYPE_REF} } }
  enumValues { name } } } }`;

export function parseIntrospection(data: any): Introspection {
  const types = new Map<string, FullType>(data.__schema.types.map((t: FullType) => [t.name, t]));
  return {
    types,
    query: types.get(data.__schema.queryType.name)!,
    mutation: data.__schema.mutationType ? types.get(data.__schema.mutationType.name) : undefined,
  };
}

function placeholder(ref: TypeRef, types: Map<string, FullType>, depth = 0): string {
  if (ref.kind === 'NON_NULL') return placeholder(ref.ofType!, types, depth);
  if (ref.kind === 'LIST') return `[${placeholder(ref.ofType!, types, depth)}]`;
  const t = types.get(ref.name!)!;
  if (t.kind === 'ENUM') return t.enumValues![0]!.name;
  if (t.kind === 'INPUT_OBJECT') {
    if (depth > 4) return '{}';
    const required = (t.inputFields ?? []).filter((f) => f.type.kind === 'NON_NULL' && f.defaultValue === null);
    return `{ ${required.map((f) => `${f.name}: ${placeholder(f.type, types, depth + 1)}`).join(', ')} }`;
  }
  switch (ref.name) {
    case 'Int':
      return '1';
    case 'Float':
      return '1.5';
    case 'Boolean':
      return 'false';
    default:
      return '"placeholder-x"';
  }
}

/** `{ field(requiredArg: placeholder) { __typename } }` (or without a selection for scalars). */
export function minimalCall(schema: Introspection, operation: 'query' | 'mutation', field: string): string {
  const root = operation === 'query' ? schema.query : schema.mutation!;
  const f = root.fields!.find((x) => x.name === field)!;
  const args = f.args.filter((a) => a.type.kind === 'NON_NULL' && a.defaultValue === null).map((a) => `${a.name}: ${placeholder(a.type, schema.types)}`);
  let t = f.type;
  while (t.ofType) t = t.ofType;
  const named = schema.types.get(t.name!)!;
  const selection = named.kind === 'OBJECT' || named.kind === 'INTERFACE' || named.kind === 'UNION' ? ' { __typename }' : '';
  return `${operation} { ${field}${args.length ? `(${args.join(', ')})` : ''}${selection} }`;
}
