/** The operator section's settings table is the one the config schemas generate (scripts/settings-table.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeWithTable } from '../../scripts/settings-table.js';
import { ROOT } from './deploy.helpers.js';

test('docs/operations-and-deployment.md settings table matches the config schemas (regenerate: tsx scripts/settings-table.ts --write)', () => {
  const readme = readFileSync(join(ROOT, 'docs', 'operations-and-deployment.md'), 'utf8');
  expect(readme).toBe(readmeWithTable(readme));
  expect(readme).toContain('```mermaid');
});
