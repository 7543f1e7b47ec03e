/**
 * Builds a minimal valid call for any root field from the schema's introspection: every required
 * argument gets the value given for its name (real ids, dates) or a placeholder of its type (input
 * objects recursively), and the selection is just `__typename`. Policy tests use it to call every
 * query and mutation the schema has, so a field added later is covered without editing the test;
 * a type it has no placeholder for throws (UnbuildableArgument), failing that field by name.
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

/** GraphQL literals for required arguments by name (e.g. real ids of the caller's objects); a name not given gets a placeholder of its type. */
export type ArgValues = Record<string, string>;

/** Thrown when the walk cannot build a value for an argument: the field's test fails naming it, never skips it. */
export class UnbuildableArgument extends Error {}

function placeholder(ref: TypeRef, types: Map<string, FullType>, values: ArgValues, at: string, depth = 0): string {
  if (ref.kind === 'NON_NULL') return placeholder(ref.ofType!, types, values, at, depth);
  if (ref.kind === 'LIST') return `[${placeholder(ref.ofType!, types, values, at, depth)}]`;
  const t = types.get(ref.name!)!;
  if (t.kind === 'ENUM') return t.enumValues![0]!.name;
  if (t.kind === 'INPUT_OBJECT') {
    if (depth > 4) throw new UnbuildableArgument(`${at}: input ${t.name} nested deeper than 4 levels`);
    const required = (t.inputFields ?? []).filter((f) => f.type.kind === 'NON_NULL' && f.defaultValue === null);
    const fields = required.map((f) => `${f.name}: ${values[f.name] ?? placeholder(f.type, types, values, `${at}.${f.name}`, depth + 1)}`);
    return `{ ${fields.join(', ')} }`;
  }
  switch (ref.name) {
    case 'Int':
      return '1';
    case 'Float':
      return '1.5';
    case 'Boolean':
      return 'false';
    case 'String':
    case 'ID':
      return '"placeholder-x"';
    case 'JSON':
      return '{}';
    default:
      // A new scalar needs a deliberate placeholder (a string may be no valid value of it).
      throw new UnbuildableArgument(`${at}: no placeholder for scalar ${ref.name}`);
  }
}

/**
 * `{ field(requiredArg: value) { __typename } }` (plus `errorCode` on mutation payloads; no selection for scalars): each required
 * argument (and required input field) from `values` by name, else a placeholder of its type.
 */
export function minimalCall(schema: Introspection, operation: 'query' | 'mutation', field: string, values: ArgValues = {}): string {
  const root = operation === 'query' ? schema.query : schema.mutation!;
  const f = root.fields!.find((x) => x.name === field);
  if (!f) throw new UnbuildableArgument(`${operation} ${field} is not in the schema`);
  const args = f.args
    .filter((a) => a.type.kind === 'NON_NULL' && a.defaultValue === null)
    .map((a) => `${a.name}: ${values[a.name] ?? placeholder(a.type, schema.types, values, `${field}(${a.name})`)}`);
  let t = f.type;
  while (t.ofType) t = t.ofType;
  const named = schema.types.get(t.name!)!;
  // A mutation payload's errorCode too: a refusal must not hide in `{ success: false }`.
  const payload = named.fields?.some((x) => x.name === 'errorCode') ? ' errorCode' : '';
  const selection = named.kind === 'OBJECT' || named.kind === 'INTERFACE' || named.kind === 'UNION' ? ` { __typename${payload} }` : '';
  return `${operation} { ${field}${args.length ? `(${args.join(', ')})` : ''}${selection} }`;
}
