/**
 * The one policy table against the composed schema: every root field and every entity has a rule,
 * and every query rule names a field that exists. (Mutation rules also list the spec's mutations not
 * built yet, so `permissions` reports them from the start.)
 */
import { loadApiSchema } from '../../src/graphql/api-schema.js';
import { allows, requireRule } from '../../src/auth/access.js';
import { ENTITY_RULES, FIELD_RULES, MUTATION_RULES, QUERY_RULES, guardMutation, guardQuery, mayReadField } from '../../src/auth/operation-rules.js';
import { readFileSync } from 'node:fs';
import { SCHEMA_DIR } from '../../src/graphql/context.js';

const schema = loadApiSchema();
const fields = (t: 'Query' | 'Mutation') => Object.keys((t === 'Query' ? schema.getQueryType() : schema.getMutationType())?.getFields() ?? {}).sort();

test('every query of the schema has a rule, and every query rule names a query of the schema', () => {
  expect(fields('Query')).toEqual(Object.keys(QUERY_RULES).sort());
});

test('every mutation of the schema has a rule', () => {
  expect(fields('Mutation').filter((m) => !(m in MUTATION_RULES))).toEqual([]);
});

test('every entity a subgraph resolves by reference has a rule', () => {
  const supergraph = readFileSync(`${SCHEMA_DIR}supergraph.graphql`, 'utf8');
  // Entities with a resolvable key in some subgraph: @join__type(graph: X, key: "id") without resolvable: false.
  const entities = new Set(
    [...supergraph.matchAll(/^type (\w+)\n((?:\s+@join__[^\n]+\n)+)/gm)].filter((m) => /@join__type\(graph: \w+, key: "[^"]+"\)/.test(m[2]!)).map((m) => m[1]!),
  );
  expect([...entities].sort()).toEqual(Object.keys(ENTITY_RULES).sort());
});

test('guards refuse with FORBIDDEN naming the missing policy or administrator', () => {
  const editor = { policies: ['Devices_View', 'Devices_Edit', 'Alerts_View'] as const, roles: ['Editor'] };
  const p = { policies: [...editor.policies], roles: editor.roles };
  expect(() => guardQuery(p, 'device')).not.toThrow();
  expect(() => guardMutation(p, 'deleteDevice')).toThrow('this operation requires the Devices_Delete policy');
  expect(() => guardMutation(p, 'deleteAlertRule')).toThrow(/Devices_Delete/);
  expect(() => guardQuery(p, 'apiKeys')).toThrow('this operation requires an account owner or administrator');
  expect(allows(p, MUTATION_RULES.updateAlert)).toBe(true);
  expect(allows({ policies: [], roles: ['Administrator'] }, 'Administrator')).toBe(true);
  expect(() => requireRule({ policies: [], roles: [] }, 'Authenticated')).not.toThrow();
});

test('every guarded field exists in the schema; viewers do not read the registration key', () => {
  for (const path of Object.keys(FIELD_RULES)) {
    const [type, field] = path.split('.') as [string, string];
    const t = schema.getType(type) as { getFields?: () => Record<string, unknown> } | undefined;
    expect([path, Boolean(t?.getFields?.()[field])]).toEqual([path, true]);
  }
  expect(mayReadField({ policies: ['Devices_View'], roles: ['Viewer'] }, 'Device.registrationKey')).toBe(false);
  expect(mayReadField({ policies: ['Devices_View', 'Devices_Edit'], roles: ['Editor'] }, 'Device.registrationKey')).toBe(true);
});
