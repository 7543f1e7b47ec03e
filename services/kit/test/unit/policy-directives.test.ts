/**
 * A root field's rule is declared once, beside it in its subgraph's SDL (`@policy(name: ...)`); the
 * kit's table (generated) and `permissions` follow it. The `Policy:` sentences in the field
 * descriptions are prose for readers of the API docs: each must name the rule the directive
 * declares, so the docs cannot drift from what is enforced.
 */
import { readFileSync } from 'node:fs';
import { Kind, parse, type FieldDefinitionNode } from 'graphql';
import { SCHEMA_DIR } from '../../src/graphql/context.js';
import { MUTATION_RULES, QUERY_RULES } from '../../src/auth/operation-rules.js';
import { POLICIES } from '../../src/auth/policies.js';

const SUBGRAPHS = ['devices', 'content', 'scheduling', 'datatables', 'analytics', 'identity'];
const RULE_NAMES = new Set<string>([...POLICIES, 'Administrator', 'Authenticated']);

/** Every Query and Mutation field of every subgraph with its directive's rule names. */
function rootFields(): { where: string; field: FieldDefinitionNode; rule: string[] }[] {
  const out: { where: string; field: FieldDefinitionNode; rule: string[] }[] = [];
  for (const name of SUBGRAPHS) {
    for (const d of parse(readFileSync(`${SCHEMA_DIR}subgraphs/${name}.graphql`, 'utf8')).definitions) {
      if ((d.kind !== Kind.OBJECT_TYPE_DEFINITION && d.kind !== Kind.OBJECT_TYPE_EXTENSION) || !['Query', 'Mutation'].includes(d.name.value)) continue;
      for (const field of d.fields ?? []) {
        const v = field.directives?.find((x) => x.name.value === 'policy')?.arguments?.[0]?.value;
        const rule = v?.kind === Kind.STRING ? [v.value] : v?.kind === Kind.LIST ? v.values.map((x) => (x.kind === Kind.STRING ? x.value : '?')) : [];
        out.push({ where: `${name}: ${d.name.value}.${field.name.value}`, field, rule });
      }
    }
  }
  return out;
}

test('every root field declares a known rule with @policy, and the kit table is that rule', () => {
  for (const { where, field, rule } of rootFields()) {
    expect([where, rule.length > 0 && rule.every((r) => RULE_NAMES.has(r))]).toEqual([where, true]);
    const table: Record<string, unknown> = where.includes(': Query.') ? QUERY_RULES : MUTATION_RULES;
    const declared = table[field.name.value];
    expect([where, declared === undefined ? [] : Array.isArray(declared) ? [...declared] : [declared]]).toEqual([where, rule]);
  }
});

test("each description's `Policy:` sentence names the rule @policy declares", () => {
  const drift: string[] = [];
  for (const { where, field, rule } of rootFields()) {
    const m = /Policy: (\w+)(?: \(and (\w+)\))?/.exec(field.description?.value ?? '');
    // "Policy: that of the job's work" and the like describe a rule in prose; only rule names are compared.
    if (!m || !RULE_NAMES.has(m[1]!)) continue;
    const named = [m[1]!, ...(m[2] ? [m[2]] : [])].sort();
    if (named.join() !== [...rule].sort().join()) drift.push(`${where}: the description says ${named.join(' and ')}, @policy says ${rule.join(' and ')}`);
  }
  expect(drift).toEqual([]);
});
