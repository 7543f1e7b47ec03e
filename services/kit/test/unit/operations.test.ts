import { parse, Kind } from 'graphql';
import { loadOperations } from '../../src/facade/gateway-client.js';

test.each(['rest', 'legacy'] as const)('every %s operation stands alone: one operation, every spread fragment defined once, none unused', (facade) => {
  const ops = loadOperations(facade);
  expect(ops.size).toBeGreaterThan(0);
  for (const [id, text] of ops) {
    const doc = parse(text);
    const operations = doc.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    expect(operations).toHaveLength(1);
    const defined = doc.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [d.name.value] : []));
    expect(new Set(defined).size).toBe(defined.length);
    const spread = new Set([...text.matchAll(/\.\.\.\s*(?!on\b)([A-Za-z_]\w*)/g)].map((m) => m[1]!));
    expect({ id, fragments: [...spread].sort() }).toEqual({ id, fragments: [...defined].sort() });
  }
});

test('the shared fragments reach the operations that spread them', () => {
  expect(loadOperations('rest').get('getDevice')).toMatch(/fragment RestDevice on Device/);
  expect(loadOperations('legacy').get('listDevices')).toMatch(/fragment LegacyDevice on Device/);
  expect(loadOperations('rest').has('_fragments')).toBe(false);
});
