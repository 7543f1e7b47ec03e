/** README and docs commands a new user types on a fresh machine: no bare pnpm (not on PATH there), every example block accounted for. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../../gateway/test/processes.js';
import { DOC_PAGES, docsBlocks, foreignHosts, hardCodedAddresses, unlistedPages } from './readme-examples.js';

const pages = DOC_PAGES.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

test('no README or docs command needs pnpm on the PATH (npm run ..., or npx --yes pnpm@<version>)', () => {
  const bare = pages.flatMap(({ file, text }) =>
    text
      .split('\n')
      .flatMap((line, i) =>
        [...line.matchAll(/(^|[\s`(])pnpm (admin|exec|jest|compose|codegen|install|run|add|typecheck|lint|format|test|bench|start|serve)\b/g)].length
          ? [`${file}:${i + 1}: ${line.trim()}`]
          : [],
      ),
  );
  expect(bare).toEqual([]);
});

test('every docs page is in the examples run (DOC_PAGES), so a block moved to a new page still runs', () => {
  expect(unlistedPages(ROOT)).toEqual([]);
});

test('every shell block either runs in the README test or says why it cannot', () => {
  const blocks = docsBlocks(ROOT);
  expect(blocks.filter((b) => !b.skip).length).toBeGreaterThanOrEqual(8);
  for (const b of blocks)
    if (!b.skip)
      expect({ at: `${b.file}:${b.line}`, hosts: foreignHosts(b.body), hardCoded: hardCodedAddresses(b.body) }).toEqual({
        at: `${b.file}:${b.line}`,
        hosts: [],
        hardCoded: [],
      });
  // No placeholder a reader would have to invent: ids are captured from earlier answers.
  for (const b of blocks)
    if (!b.skip)
      expect({ at: `${b.file}:${b.line}`, placeholders: b.body.match(/<[a-z][a-z ]*(id|Id|etag)>/g) ?? [] }).toEqual({
        at: `${b.file}:${b.line}`,
        placeholders: [],
      });
});

test('every page sets BASE (and LEGACY) at the top of its examples, so another port is one edit', () => {
  for (const { file } of pages) {
    const blocks = docsBlocks(ROOT).filter((b) => b.file === file);
    const first = blocks.find((b) => /\$(BASE|LEGACY)\b/.test(b.body));
    if (!first) continue;
    const used = ['BASE', 'LEGACY'].filter((name) => blocks.some((b) => b.body.includes(`$${name}`)));
    const set = used.filter((name) => new RegExp(`^${name}=http://127\\.0\\.0\\.1:40[08]0`, 'm').test(first.body));
    expect({ file, line: first.line, set }).toEqual({ file, line: first.line, set: used });
  }
});

test('README and docs links stay inside the repository (no /work/... or other local absolute paths) and lead to files that exist', () => {
  for (const { file, text } of pages) {
    expect({ file, absolute: text.match(/`\/work\/[^`]*`|\]\(\/[^)]*\)/g) ?? [] }).toEqual({ file, absolute: [] });
    for (const [, target] of text.matchAll(/\]\(((?!https?:|#|mailto:)[^)\s#]+)(#[^)\s]*)?\)/g)) {
      const path = join(ROOT, dirname(file), target!);
      expect({ file, target, exists: existsSync(path) }).toEqual({ file, target, exists: true });
    }
  }
});
