/** The response shape two selections must share for the gateway's single-fetch path (selection-shape.ts). */
import { buildSchema, parse, type OperationDefinitionNode } from 'graphql';
import { fragmentsOf, selectionShape } from '../src/selection-shape.js';

const schema = buildSchema(`
  interface Node { id: ID! }
  type Thing implements Node { id: ID! name: String tags: [String!]! owner: Owner }
  type Owner { id: ID! label: String }
  union Any = Thing | Owner
  type Query { things(limit: Int, order: String): [Thing!]! node(id: ID!): Node any: [Any!]! count: Int }
`);

const shape = (text: string) => {
  const doc = parse(text);
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  return selectionShape(schema, op, fragmentsOf(doc.definitions));
};

describe('selectionShape', () => {
  test('fragments on the parent type, inline fragments and repeated fields give the shape of the written-out fields', () => {
    const plain = shape('{ things(limit: 2, order: "name") { id name owner { id label } } }');
    expect(plain).not.toBeNull();
    expect(shape('query Q { things(order: "name", limit: 2) { ...F owner { label } } } fragment F on Thing { id name owner { id } }')).toBe(plain);
    expect(shape('{ things(limit: 2, order: "name") { ... on Thing { id } ... { name } owner { id label } } }')).toBe(plain);
  });

  test('what changes the answer changes the shape', () => {
    const plain = shape('{ things(limit: 2) { id name } }');
    expect(shape('{ things(limit: 3) { id name } }')).not.toBe(plain);
    expect(shape('{ things(limit: 2) { name id } }')).not.toBe(plain); // key order
    expect(shape('{ things(limit: 2) { id title: name } }')).not.toBe(plain); // alias
    expect(shape('{ things(limit: 2) { id name __typename } }')).not.toBe(plain);
    expect(shape('query($n: Int) { things(limit: $n) { id name } }')).not.toBe(plain);
  });

  test('no shape where the answer depends on more than the text', () => {
    expect(shape('query($x: Boolean!) { things { id name @include(if: $x) } }')).toBeNull();
    expect(shape('{ things { ... @skip(if: true) { id } } }')).toBeNull();
    expect(shape('{ node(id: "1") { id } }')).toBeNull(); // interface
    expect(shape('{ any { ... on Thing { id } } }')).toBeNull(); // union
    expect(shape('{ __schema { types { name } } }')).toBeNull(); // introspection
    expect(shape('{ things { ... on Owner { id } } }')).toBeNull(); // fragment on another type
    expect(shape('{ things(limit: 1) { id } things(limit: 2) { id } }')).toBeNull(); // one key, two fields
    expect(shape('mutation { x }')).toBeNull();
  });
});
