/** Kept results (src/derived-cache.ts): found by input and salt, written by the build where a start looks, never stale. */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { derivedCache, packageBuild } from '../../src/derived-cache.js';

const dir = mkdtempSync(join(tmpdir(), 'derived-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const urlOf = (name: string) => pathToFileURL(`${join(dir, name)}/`);

/** A cache whose derivations are counted. */
function counted(dirs: URL[], salt?: string) {
  const calls: string[] = [];
  const cache = derivedCache({
    name: 'upper',
    dirs,
    derive: (input: string) => (calls.push(input), { text: input.toUpperCase() }),
    ...(salt === undefined ? {} : { salt }),
    valid: (kept) => typeof (kept as { text?: unknown } | null)?.text === 'string',
  });
  return { cache, calls };
}

test('what the build writes is what a start finds: no derivation at the start, the memo left untouched', () => {
  const [built, memo] = [urlOf('built'), urlOf('memo-1')];
  counted([built]).cache.write('abc', built);
  const { cache, calls } = counted([built, memo]);
  expect(cache.get('abc')).toEqual({ text: 'ABC' });
  expect(calls).toEqual([]);
  expect(() => readdirSync(memo)).toThrow();
});

test('another input, another salt or a file of the wrong shape is derived anew (and kept for the next start)', () => {
  const memo = urlOf('memo-2');
  const first = counted([memo], 'v1');
  first.cache.get('abc');
  expect(first.calls).toEqual(['abc']);
  const again = counted([memo], 'v1');
  again.cache.get('abc');
  expect(again.calls).toEqual([]);
  const salted = counted([memo], 'v2');
  expect(salted.cache.get('abc')).toEqual({ text: 'ABC' });
  expect(salted.calls).toEqual(['abc']);
  expect(readdirSync(memo)).toHaveLength(2);
  // A kept file someone truncated to another shape: derived again, not answered.
  for (const f of readdirSync(memo)) writeFileSync(join(memo.pathname, f), JSON.stringify({ nope: 1 }));
  const checked = counted([memo], 'v1');
  expect(checked.cache.get('abc')).toEqual({ text: 'ABC' });
  expect(checked.calls).toEqual(['abc']);
});

test("a package's build is pnpm's folder for it: its version and patch", () => {
  expect(packageBuild(import.meta.url, '@apollo/federation-internals')).toMatch(/^@apollo\+federation-internals@\d+\.\d+\.\d+_patch_hash=[0-9a-f]+/);
  expect(packageBuild(import.meta.url, 'graphql')).toMatch(/^graphql@\d+\.\d+\.\d+/);
});
