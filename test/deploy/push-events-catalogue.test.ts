/** The push-event catalogue of docs/webhooks-and-events.md is the one the kit's catalogue generates (scripts/push-events-catalogue.ts). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readmeWithCatalogue } from '../../scripts/push-events-catalogue.js';

test('docs/webhooks-and-events.md push-event catalogue matches services/kit/src/push-events.ts (regenerate: tsx scripts/push-events-catalogue.ts --write)', () => {
  const readme = readFileSync(fileURLToPath(new URL('../../docs/webhooks-and-events.md', import.meta.url)), 'utf8');
  expect(readmeWithCatalogue(readme)).toBe(readme);
});
