/** README and docs commands a new user types on a fresh machine: no bare pnpm (not on PATH there), every example block accounted for. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/** Paths the pages name that a build or a run writes (not in a fresh clone): `npm run build`'s console bundle, the data folder. */
const WRITTEN_AT_RUN = ['console/dist', 'data/'];
/** Top-level entries a fresh clone does not have (.gitignore): a path under one is not checked. */
const NOT_IN_A_CLONE = new Set(['node_modules', 'data', 'dist', 'coverage', '.tmp', '.git']);

/** `a/{b,c}/d` -> `a/b/d`, `a/c/d`. */
const expandBraces = (path: string): string[] => {
  const m = /\{([^{}]*)\}/.exec(path);
  return m ? m[1]!.split(',').flatMap((alt) => expandBraces(path.slice(0, m.index) + alt + path.slice(m.index + m[0].length))) : [path];
};

test('every repository path a page names in backticks exists (a file moved into features/ leaves no stale path behind)', () => {
  const tops = new Set(readdirSync(ROOT).filter((name) => !NOT_IN_A_CLONE.has(name)));
  const missing: string[] = [];
  for (const { file, text } of pages)
    for (const [, token] of text.matchAll(/`([^`\s]+\/[^`\s]*)`/g)) {
      const path = token!.replace(/[:#].*$/, '').replace(/[.,;)]+$/, '');
      if (!tops.has(path.split('/')[0]!) || path.includes('$') || WRITTEN_AT_RUN.some((p) => path.startsWith(p))) continue;
      // A pattern (`schema/subgraphs/*.graphql`, `services/<subgraph>/...`): its fixed folder must exist.
      for (const one of expandBraces(path)) {
        const wild = one.search(/[*<]/);
        const fixed = wild < 0 ? one : one.slice(0, one.lastIndexOf('/', wild) + 1);
        if (!existsSync(join(ROOT, fixed))) missing.push(`${file}: ${one}`);
      }
    }
  expect(missing).toEqual([]);
});
