/** Issue 34, L5: the description of the pairing-code alphabet in docs/player.md is the alphabet the codes use. */
import { readFileSync } from 'node:fs';
import { PAIRING_ALPHABET } from '../../../domain/pairing.js';

test('every character docs/player.md says pairing codes leave out is left out', () => {
  const readme = readFileSync(new URL('../../../../../../docs/player.md', import.meta.url), 'utf8');
  const claim = /unambiguous\s+alphabet \(no ([^)]*)\)/.exec(readme);
  expect(claim).not.toBeNull();
  const excluded = claim![1]!.split(/[\s,/]+/).filter(Boolean);
  expect(excluded.length).toBeGreaterThan(5);
  for (const c of excluded) expect([c, PAIRING_ALPHABET.includes(c)]).toEqual([c, false]);
});
