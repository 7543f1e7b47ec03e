/**
 * The test API the contract suites are written against (describe, test, hooks, expect), so one set
 * of suites has two drivers:
 * - under jest these are jest's own globals (the suites run in `npm test` exactly as before);
 * - elsewhere (the `verify` role in the image, which has production dependencies only, no jest)
 *   `collect` records the suites a contract function declares and `runCollected` runs them, with
 *   the small `expect` of ./expect.ts. Same checks, no copy of them.
 */
import { inspect } from 'node:util';
import { miniExpect } from './expect.js';

type Fn = () => unknown;

interface Case {
  kind: 'case';
  name: string;
  fn: Fn;
  skip: boolean;
  timeoutMs?: number;
}

interface Block {
  kind: 'block';
  name: string;
  skip: boolean;
  items: (Block | Case)[];
  beforeAll: Fn[];
  afterAll: Fn[];
  beforeEach: Fn[];
  afterEach: Fn[];
}

const jestGlobals = globalThis as unknown as Partial<Record<'describe' | 'test' | 'expect' | 'beforeAll' | 'afterAll' | 'beforeEach' | 'afterEach', unknown>>;
/** Jest injects its globals before any test module loads; a plain `node` process has none. */
const underJest = typeof jestGlobals.test === 'function' && typeof jestGlobals.describe === 'function' && typeof jestGlobals.expect === 'function';

let current: Block | undefined;

const newBlock = (name: string, skip: boolean): Block => ({ kind: 'block', name, skip, items: [], beforeAll: [], afterAll: [], beforeEach: [], afterEach: [] });

function here(what: string): Block {
  if (!current) throw new Error(`${what} outside collect(): contract suites are declared inside a contract function`);
  return current;
}

/** jest's `%s`/`%d`/`%i`/`%p`/`%j` in a `test.each` title, filled from the row in order. */
function title(format: string, row: unknown[]): string {
  let i = 0;
  return format.replace(/%[sdipj]/g, () => {
    const v = row[i++];
    return typeof v === 'string' ? v : inspect(v, { depth: 2, breakLength: Infinity });
  });
}

function declareBlock(name: string, body: () => void, skip: boolean): void {
  const parent = here('describe');
  const block = newBlock(name, skip || parent.skip);
  parent.items.push(block);
  current = block;
  try {
    body();
  } finally {
    current = parent;
  }
}

function declareCase(name: string, fn: Fn, timeoutMs: number | undefined, skip: boolean): void {
  const block = here('test');
  block.items.push({ kind: 'case', name, fn, skip: skip || block.skip, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
}

const each = (skip: boolean) => (rows: readonly unknown[]) => (name: string, fn: (...args: never[]) => unknown, timeoutMs?: number) => {
  for (const r of rows) {
    const row = Array.isArray(r) ? r : [r];
    declareCase(title(name, row), () => (fn as (...a: unknown[]) => unknown)(...row), timeoutMs, skip);
  }
};

const collectingTest = Object.assign((name: string, fn: Fn, timeoutMs?: number) => declareCase(name, fn, timeoutMs, false), {
  skip: Object.assign((name: string, fn: Fn, timeoutMs?: number) => declareCase(name, fn, timeoutMs, true), { each: each(true) }),
  each: each(false),
});
const collectingDescribe = Object.assign((name: string, body: () => void) => declareBlock(name, body, false), {
  skip: (name: string, body: () => void) => declareBlock(name, body, true),
});
const hook = (which: 'beforeAll' | 'afterAll' | 'beforeEach' | 'afterEach') => (fn: Fn) => {
  here(which)[which].push(fn);
};

export const describe = (underJest ? jestGlobals.describe : collectingDescribe) as jest.Describe;
export const test = (underJest ? jestGlobals.test : collectingTest) as jest.It;
export const expect = (underJest ? jestGlobals.expect : miniExpect) as jest.Expect;
export const beforeAll = (underJest ? jestGlobals.beforeAll : hook('beforeAll')) as jest.Lifecycle;
export const afterAll = (underJest ? jestGlobals.afterAll : hook('afterAll')) as jest.Lifecycle;
export const beforeEach = (underJest ? jestGlobals.beforeEach : hook('beforeEach')) as jest.Lifecycle;
export const afterEach = (underJest ? jestGlobals.afterEach : hook('afterEach')) as jest.Lifecycle;

/** The suites `declare` registers (a contract function called with its adapter factory), not yet run. */
export interface Collected {
  root: Block;
  /** Cases that will run (not skipped). */
  count: number;
}

export function collect(declare: () => void): Collected {
  if (underJest) throw new Error('collect() is for runs without jest; under jest the suites register with jest itself');
  if (current) throw new Error('collect() calls do not nest');
  const root = newBlock('', false);
  current = root;
  try {
    declare();
  } finally {
    current = undefined;
  }
  const count = (b: Block): number => b.items.reduce((n, i) => n + (i.kind === 'block' ? count(i) : i.skip ? 0 : 1), 0);
  return { root, count: count(root) };
}

export interface CaseResult {
  /** The describe titles and the test title, joined by ' > '. */
  name: string;
  outcome: 'passed' | 'failed' | 'skipped';
  ms: number;
  /** Why it failed (the first error: a hook's, the test's or an afterEach's). */
  error?: string;
}

export interface RunOptions {
  /** A test or hook without a timeout of its own fails after this long (jest's testTimeout). */
  timeoutMs: number;
  /** Called after each case, e.g. to print progress. */
  onCase?: (r: CaseResult) => void;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : typeof e === 'string' ? e : inspect(e, { depth: 2, breakLength: Infinity }));

/** Runs `fn`; rejects after `ms` (the call itself cannot be stopped: it is left to finish in the background, as jest does). */
async function timed(fn: Fn, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.resolve().then(fn),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs collected suites one case at a time in declaration order, with jest's hook order: beforeAll
 * once per block, beforeEach outermost first, afterEach innermost first, afterAll once per block
 * (also when a case failed). A failing beforeAll fails every case of its block.
 */
export async function runCollected(collected: Collected, options: RunOptions): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  const report = (r: CaseResult) => {
    results.push(r);
    options.onCase?.(r);
  };
  const cases = (b: Block): Case[] => b.items.flatMap((i) => (i.kind === 'block' ? cases(i) : [i]));
  const join = (path: string[], name: string) => [...path, name].filter(Boolean).join(' > ');

  async function runBlock(block: Block, path: string[], before: Fn[], after: Fn[]): Promise<void> {
    const all = cases(block).filter((c) => !c.skip);
    if (all.length === 0) {
      for (const c of cases(block)) report({ name: join(path, c.name), outcome: 'skipped', ms: 0 });
      return;
    }
    let setupError: string | undefined;
    for (const h of block.beforeAll) {
      if (setupError) break;
      await timed(h, options.timeoutMs, 'beforeAll').catch((e: unknown) => (setupError = `beforeAll: ${message(e)}`));
    }
    const each = { before: [...before, ...block.beforeEach], after: [...block.afterEach, ...after] };
    for (const item of block.items) {
      if (item.kind === 'block') {
        if (setupError)
          for (const c of cases(item)) report({ name: join([...path, item.name], c.name), outcome: c.skip ? 'skipped' : 'failed', ms: 0, error: setupError });
        else await runBlock(item, [...path, item.name], each.before, each.after);
        continue;
      }
      const name = join(path, item.name);
      if (item.skip) {
        report({ name, outcome: 'skipped', ms: 0 });
        continue;
      }
      if (setupError) {
        report({ name, outcome: 'failed', ms: 0, error: setupError });
        continue;
      }
      const started = performance.now();
      let error: string | undefined;
      try {
        for (const h of each.before) await timed(h, options.timeoutMs, 'beforeEach');
        await timed(item.fn, item.timeoutMs ?? options.timeoutMs, 'test');
      } catch (e) {
        error = message(e);
      }
      for (const h of each.after) {
        await timed(h, options.timeoutMs, 'afterEach').catch((e: unknown) => (error ??= `afterEach: ${message(e)}`));
      }
      report({
        name,
        outcome: error === undefined ? 'passed' : 'failed',
        ms: Math.round(performance.now() - started),
        ...(error !== undefined ? { error } : {}),
      });
    }
    for (const h of block.afterAll) {
      await timed(h, options.timeoutMs, 'afterAll').catch((e: unknown) =>
        report({ name: join(path, 'afterAll'), outcome: 'failed', ms: 0, error: message(e) }),
      );
    }
  }

  await runBlock(collected.root, [], [], []);
  return results;
}
