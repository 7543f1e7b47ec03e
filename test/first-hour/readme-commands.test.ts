/** README commands a new user types on a fresh machine: no bare pnpm (not on PATH there), every example block accounted for. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../gateway/test/processes.js';
import { foreignHosts, readmeBlocks } from './readme-examples.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

test('no README command needs pnpm on the PATH (npm run ..., or npx --yes pnpm@<version>)', () => {
  const bare = readme
    .split('\n')
    .flatMap((line, i) =>
      [...line.matchAll(/(^|[\s`(])pnpm (admin|exec|jest|compose|codegen|install|run|add|typecheck|lint|format|test|bench|start|serve)\b/g)].length
        ? [`${i + 1}: ${line.trim()}`]
        : [],
    );
  expect(bare).toEqual([]);
});

test('every shell block either runs in the README test or says why it cannot', () => {
  const blocks = readmeBlocks(readme);
  expect(blocks.filter((b) => !b.skip).length).toBeGreaterThanOrEqual(8);
  for (const b of blocks) if (!b.skip) expect({ line: b.line, hosts: foreignHosts(b.body) }).toEqual({ line: b.line, hosts: [] });
  // No placeholder a reader would have to invent: ids are captured from earlier answers.
  for (const b of blocks)
    if (!b.skip) expect({ line: b.line, placeholders: b.body.match(/<[a-z][a-z ]*(id|Id|etag)>/g) ?? [] }).toEqual({ line: b.line, placeholders: [] });
});

test('README links stay inside the repository (no /work/... or other local absolute paths)', () => {
  expect(readme.match(/`\/work\/[^`]*`|\]\(\/[^)]*\)/g) ?? []).toEqual([]);
  for (const [, target] of readme.matchAll(/\]\(((?!https?:|#)[^)\s]+)\)/g))
    expect({ target, exists: existsSync(join(ROOT, target!)) }).toEqual({ target, exists: true });
});
