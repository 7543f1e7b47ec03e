/**
 * The contract harness's expect (src/contract/expect.ts, what the image's `verify` role checks
 * with) against jest's own: for every matcher the suites use, on passing and failing cases alike,
 * both agree (a matcher that never threw would pass every suite vacuously). And the harness's
 * runner outside jest (a plain node process, as in the image): jest's hook order, failures,
 * skips, a failing beforeAll failing its block, timeouts.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { miniExpect } from '../../src/contract/expect.js';
import { collect } from '../../src/contract/harness.js';

class Boom extends Error {
  code = 'BAD_USER_INPUT';
}
const boom = () => {
  throw new Boom('bad input here');
};
const fine = () => 1;

type Expectish = { arrayContaining(items: unknown[]): unknown };
/** Arguments, or a function building them from the expect at hand (asymmetric matchers are each side's own). */
type Args = unknown[] | ((e: Expectish) => unknown[]);
type Case = [label: string, actual: unknown, path: string[], args: Args];
const cases: Case[] = [
  ['toBe same', 1, ['toBe'], [1]],
  ['toBe other', 1, ['toBe'], [2]],
  ['toBe object identity', { a: 1 }, ['toBe'], [{ a: 1 }]],
  ['not.toBe', 1, ['not', 'toBe'], [2]],
  ['toEqual deep', { a: [1, { b: 'x' }], u: undefined }, ['toEqual'], [{ a: [1, { b: 'x' }] }]],
  ['toEqual differs deep', { a: [1, { b: 'x' }] }, ['toEqual'], [{ a: [1, { b: 'y' }] }]],
  ['toEqual extra key', { a: 1, b: 2 }, ['toEqual'], [{ a: 1 }]],
  ['toEqual array vs object', [1], ['toEqual'], [{ 0: 1 }]],
  ['toEqual dates', new Date(5), ['toEqual'], [new Date(5)]],
  ['toEqual dates differ', new Date(5), ['toEqual'], [new Date(6)]],
  ['toEqual buffers', Buffer.from('ab'), ['toEqual'], [Buffer.from('ab')]],
  ['toEqual buffers differ', Buffer.from('ab'), ['toEqual'], [Buffer.from('ac')]],
  ['toEqual arrayContaining', [3, 1, 2], ['toEqual'], (e) => [e.arrayContaining([1, 2])]],
  ['toEqual arrayContaining missing', [3, 1], ['toEqual'], (e) => [e.arrayContaining([1, 2])]],
  ['toMatchObject subset', { a: 1, b: { c: 2, d: 3 } }, ['toMatchObject'], [{ b: { c: 2 } }]],
  ['toMatchObject differs', { a: 1, b: { c: 2 } }, ['toMatchObject'], [{ b: { c: 3 } }]],
  ['toMatchObject missing key', { a: 1 }, ['toMatchObject'], [{ z: undefined }]],
  ['toMatchObject arrays by length', { l: [1, 2] }, ['toMatchObject'], [{ l: [1] }]],
  ['toBeNull', null, ['toBeNull'], []],
  ['toBeNull not', 0, ['toBeNull'], []],
  ['not.toBeNull', 0, ['not', 'toBeNull'], []],
  ['toBeUndefined', undefined, ['toBeUndefined'], []],
  ['toBeDefined', null, ['toBeDefined'], []],
  ['toBeGreaterThan', 2, ['toBeGreaterThan'], [2]],
  ['toBeGreaterThanOrEqual', 2, ['toBeGreaterThanOrEqual'], [2]],
  ['toBeLessThan', 1, ['toBeLessThan'], [2]],
  ['toBeLessThanOrEqual', 3, ['toBeLessThanOrEqual'], [2]],
  ['toBeInstanceOf', new Boom('x'), ['toBeInstanceOf'], [Boom]],
  ['toBeInstanceOf not', new Error('x'), ['toBeInstanceOf'], [Boom]],
  ['toHaveLength', [1, 2], ['toHaveLength'], [2]],
  ['toHaveLength differs', 'abc', ['toHaveLength'], [2]],
  ['toContain', ['a', 'b'], ['toContain'], ['b']],
  ['toContain string', 'abc', ['toContain'], ['d']],
  ['toMatch regexp', 'whsec_x', ['toMatch'], [/^whsec_/]],
  ['not.toMatch', 'abc', ['not', 'toMatch'], ['b']],
  ['toHaveProperty path', { a: { b: 1 } }, ['toHaveProperty'], ['a.b']],
  ['toHaveProperty value differs', { a: { b: 1 } }, ['toHaveProperty'], ['a.b', 2]],
  ['not.toHaveProperty', { a: 1 }, ['not', 'toHaveProperty'], ['b']],
  ['toThrow', boom, ['toThrow'], []],
  ['toThrow text', boom, ['toThrow'], ['input here']],
  ['toThrow text differs', boom, ['toThrow'], ['nothing like it']],
  ['toThrow class', boom, ['toThrow'], [Boom]],
  ['toThrow nothing thrown', fine, ['toThrow'], []],
  ['not.toThrow', fine, ['not', 'toThrow'], []],
];
const asyncCases: Case[] = [
  ['resolves.toBe', Promise.resolve(3), ['resolves', 'toBe'], [3]],
  ['resolves.toBeUndefined rejected', Promise.reject(new Error('x')), ['resolves', 'toBeUndefined'], []],
  ['rejects.toMatchObject', Promise.reject(new Boom('y')), ['rejects', 'toMatchObject'], [{ code: 'BAD_USER_INPUT' }]],
  ['rejects.toMatchObject differs', Promise.reject(new Boom('y')), ['rejects', 'toMatchObject'], [{ code: 'UNAVAILABLE' }]],
  ['rejects.toThrow text', Promise.reject(new Error('closed store')), ['rejects', 'toThrow'], ['closed']],
  ['rejects.toThrow on a resolve', Promise.resolve(1), ['rejects', 'toThrow'], []],
  ['rejects.toBeDefined', Promise.reject(new Error('z')), ['rejects', 'toBeDefined'], []],
];

function matcherOf(root: unknown, path: string[]): (...a: unknown[]) => unknown {
  let at = root as Record<string, unknown>;
  for (const p of path) at = at[p] as Record<string, unknown>;
  return at as unknown as (...a: unknown[]) => unknown;
}
const argsFor = (args: Args, e: Expectish) => (typeof args === 'function' ? args(e) : args);

test.each(cases)('%s: the harness agrees with jest', (_label, actual, path, args) => {
  const passes = (run: () => unknown) => {
    try {
      run();
      return true;
    } catch {
      return false;
    }
  };
  const jestSays = passes(() => matcherOf(expect(actual), path)(...argsFor(args, expect)));
  const harnessSays = passes(() => matcherOf(miniExpect(actual), path)(...argsFor(args, miniExpect)));
  expect({ harnessSays }).toEqual({ harnessSays: jestSays });
});

test.each(asyncCases)('%s: the harness agrees with jest', async (_label, actual, path, args) => {
  (actual as Promise<unknown>).catch(() => undefined);
  const passes = async (run: () => unknown) => {
    try {
      await run();
      return true;
    } catch {
      return false;
    }
  };
  const jestSays = await passes(() => matcherOf(expect(actual), path)(...argsFor(args, expect)));
  const harnessSays = await passes(() => matcherOf(miniExpect(actual), path)(...argsFor(args, miniExpect)));
  expect({ harnessSays }).toEqual({ harnessSays: jestSays });
});

test('a matcher the harness lacks throws naming it, so a suite using one fails instead of passing', () => {
  expect(() => (miniExpect(1) as unknown as { toBeCloseTo(n: number): void }).toBeCloseTo(1)).toThrow('toBeCloseTo is not in the contract harness');
});

test('under jest the harness is jest itself: collect() refuses', () => {
  expect(() => collect(() => undefined)).toThrow('under jest the suites register with jest itself');
});

test("outside jest, collect and runCollected run suites in jest's order and report failures, skips and timeouts", () => {
  const harness = fileURLToPath(new URL('../../src/contract/harness.ts', import.meta.url));
  const script = `
    import { afterAll, afterEach, beforeAll, beforeEach, collect, describe, expect, runCollected, test } from ${JSON.stringify(harness)};
    const log = [];
    const suites = collect(() => {
      describe('outer', () => {
        beforeAll(() => log.push('beforeAll'));
        beforeEach(() => log.push('beforeEach outer'));
        afterEach(() => log.push('afterEach outer'));
        afterAll(() => log.push('afterAll'));
        test('passes', () => expect({ a: [1] }).toEqual({ a: [1] }));
        test('fails', async () => expect(Promise.resolve(1)).resolves.toBe(2));
        test.skip('skipped', () => undefined);
        test.each([[1, 2], [2, 3]])('each %s', (a, b) => expect(a + 1).toBe(b));
        test('slow', () => new Promise((r) => setTimeout(r, 5_000)), 50);
        describe('inner', () => {
          beforeEach(() => log.push('beforeEach inner'));
          afterEach(() => log.push('afterEach inner'));
          test('inner passes', () => log.push('test'));
        });
        describe('broken setup', () => {
          beforeAll(() => { throw new Error('no server'); });
          test('never runs', () => log.push('ran anyway'));
        });
      });
    });
    const results = await runCollected(suites, { timeoutMs: 5_000 });
    process.stdout.write(JSON.stringify({ count: suites.count, results: results.map((r) => [r.name, r.outcome, r.error ?? '']), log }));
    process.exit(0);
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  const { count, results, log } = JSON.parse(out) as { count: number; results: string[][]; log: string[] };
  expect(count).toBe(7);
  expect(results).toEqual([
    ['outer > passes', 'passed', ''],
    ['outer > fails', 'failed', 'expected 1 to be 2'],
    ['outer > skipped', 'skipped', ''],
    ['outer > each 1', 'passed', ''],
    ['outer > each 2', 'passed', ''],
    ['outer > slow', 'failed', 'test timed out after 50 ms'],
    ['outer > inner > inner passes', 'passed', ''],
    ['outer > broken setup > never runs', 'failed', 'beforeAll: no server'],
  ]);
  // The inner test's hooks: outermost beforeEach first, innermost afterEach first; beforeAll/afterAll once.
  const inner = log.indexOf('test');
  expect(log.slice(inner - 2, inner + 3)).toEqual(['beforeEach outer', 'beforeEach inner', 'test', 'afterEach inner', 'afterEach outer']);
  expect([log[0], log.at(-1), log.filter((l) => l === 'beforeAll').length]).toEqual(['beforeAll', 'afterAll', 1]);
  expect(log).not.toContain('ran anyway');
}, 90_000);
