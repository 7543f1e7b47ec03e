/** The README's push-event catalogue is the one the kit's catalogue generates (scripts/push-events-catalogue.ts). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readmeWithCatalogue } from '../../scripts/push-events-catalogue.js';

test('README push-event catalogue matches services/kit/src/push-events.ts (regenerate: tsx scripts/push-events-catalogue.ts --write)', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  expect(readmeWithCatalogue(readme)).toBe(readme);
});
