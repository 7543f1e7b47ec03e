/**
 * The part of jest's `expect` the contract suites use, for runs without jest (harness.ts): the
 * same meaning as jest's matchers (toEqual ignores undefined properties, toMatchObject checks a
 * subset, toThrow takes a text, pattern, class or error), with `.not`, `.resolves`, `.rejects` and
 * `expect.arrayContaining`. A matcher jest has and this lacks throws, naming it, so a suite
 * that starts using one fails loudly instead of passing.
 */
import { inspect } from 'node:util';

interface Asymmetric {
  asymmetricMatch(other: unknown): boolean;
  toString(): string;
}

const isAsymmetric = (v: unknown): v is Asymmetric => typeof v === 'object' && v !== null && typeof (v as Asymmetric).asymmetricMatch === 'function';

const show = (v: unknown): string =>
  isAsymmetric(v) ? v.toString() : inspect(v, { depth: 4, breakLength: Infinity, maxArrayLength: 20, maxStringLength: 300 });

const definedKeys = (o: object) => Object.keys(o).filter((k) => (o as Record<string, unknown>)[k] !== undefined);

/** jest's recursive equality (toEqual): undefined properties ignored, object types not compared. */
export function equals(a: unknown, b: unknown): boolean {
  if (isAsymmetric(b)) return b.asymmetricMatch(a);
  if (isAsymmetric(a)) return a.asymmetricMatch(b);
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const tag = Object.prototype.toString.call(a);
  if (tag !== Object.prototype.toString.call(b)) return false;
  if (a instanceof Date && b instanceof Date) return Object.is(a.getTime(), b.getTime());
  if (a instanceof RegExp && b instanceof RegExp) return String(a) === String(b);
  if (a instanceof Error && b instanceof Error) return a.message === b.message;
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b)) {
    return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equals(x, b[i]));
  if (a instanceof Map && b instanceof Map) return a.size === b.size && [...a].every(([k, v]) => b.has(k) && equals(v, b.get(k)));
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => [...b].some((y) => equals(x, y)));
  const ka = definedKeys(a);
  const kb = definedKeys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

const isPlainish = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !(v instanceof RegExp) && !ArrayBuffer.isView(v);

/** jest's toMatchObject: every property of `expected` is in `actual` and matches, recursively; arrays match element by element. */
function matchesObject(actual: unknown, expected: unknown): boolean {
  if (isAsymmetric(expected)) return expected.asymmetricMatch(actual);
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((x, i) => matchesObject(actual[i], x));
  if (isPlainish(expected)) {
    if (typeof actual !== 'object' || actual === null) return false;
    return Object.keys(expected).every((k) => k in actual && matchesObject((actual as Record<string, unknown>)[k], expected[k]));
  }
  return equals(actual, expected);
}

type Verdict = { pass: boolean; says: string };
type Matcher = (received: unknown, ...args: unknown[]) => Verdict;

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** What toThrow accepts: nothing (any error), a text the message contains, a pattern, an error class, an error with that message. */
function thrownMatches(error: unknown, expected: unknown): boolean {
  if (expected === undefined) return true;
  if (typeof expected === 'string') return messageOf(error).includes(expected);
  if (expected instanceof RegExp) return expected.test(messageOf(error));
  if (typeof expected === 'function') return error instanceof (expected as new (...a: unknown[]) => unknown);
  if (expected instanceof Error) return messageOf(error) === expected.message;
  if (isAsymmetric(expected)) return expected.asymmetricMatch(error);
  return false;
}

function propertyAt(received: unknown, path: unknown): { found: boolean; value?: unknown } {
  const parts = Array.isArray(path) ? path.map(String) : String(path).split('.');
  let at: unknown = received;
  for (const p of parts) {
    if (at === null || at === undefined || !(p in Object(at))) return { found: false };
    at = (at as Record<string, unknown>)[p];
  }
  return { found: true, value: at };
}

const MATCHERS: Record<string, Matcher> = {
  toBe: (r, e) => ({ pass: Object.is(r, e), says: `to be ${show(e)}` }),
  toEqual: (r, e) => ({ pass: equals(r, e), says: `to equal ${show(e)}` }),
  toMatchObject: (r, e) => ({ pass: matchesObject(r, e), says: `to match object ${show(e)}` }),
  toBeNull: (r) => ({ pass: r === null, says: 'to be null' }),
  toBeUndefined: (r) => ({ pass: r === undefined, says: 'to be undefined' }),
  toBeDefined: (r) => ({ pass: r !== undefined, says: 'to be defined' }),
  toBeGreaterThan: (r, e) => ({ pass: (r as number) > (e as number), says: `to be greater than ${show(e)}` }),
  toBeGreaterThanOrEqual: (r, e) => ({ pass: (r as number) >= (e as number), says: `to be at least ${show(e)}` }),
  toBeLessThan: (r, e) => ({ pass: (r as number) < (e as number), says: `to be less than ${show(e)}` }),
  toBeLessThanOrEqual: (r, e) => ({ pass: (r as number) <= (e as number), says: `to be at most ${show(e)}` }),
  toBeInstanceOf: (r, e) => ({
    pass: r instanceof (e as new (...a: unknown[]) => unknown),
    says: `to be an instance of ${(e as { name?: string }).name ?? show(e)}`,
  }),
  toHaveLength: (r, e) => ({ pass: (r as { length?: unknown } | null)?.length === e, says: `to have length ${show(e)}` }),
  toContain: (r, e) => ({
    pass:
      typeof r === 'string' ? r.includes(String(e)) : r !== null && typeof r === 'object' && Symbol.iterator in r && [...(r as Iterable<unknown>)].includes(e),
    says: `to contain ${show(e)}`,
  }),
  toMatch: (r, e) => ({ pass: typeof r === 'string' && (e instanceof RegExp ? e.test(r) : r.includes(String(e))), says: `to match ${show(e)}` }),
  toHaveProperty: (r, ...args) => {
    const [path, value] = args;
    const at = propertyAt(r, path);
    return {
      pass: at.found && (args.length < 2 || equals(at.value, value)),
      says: `to have property ${show(path)}${args.length < 2 ? '' : ` = ${show(value)}`}`,
    };
  },
};

/** `toThrow` on a function: called here. On `.rejects` the rejection is the thrown value. */
function toThrow(received: unknown, expected: unknown, thrown: boolean): Verdict {
  let error: unknown;
  let didThrow = thrown;
  if (thrown) error = received;
  else if (typeof received === 'function') {
    try {
      (received as () => unknown)();
    } catch (e) {
      didThrow = true;
      error = e;
    }
  }
  return {
    pass: didThrow && thrownMatches(error, expected),
    says: `to throw${expected === undefined ? '' : ` ${show(expected)}`}${didThrow ? ` (threw ${show(messageOf(error))})` : ' (nothing was thrown)'}`,
  };
}

function judge(name: string, received: unknown, args: unknown[], negate: boolean, fromRejection: boolean): void {
  const v = name === 'toThrow' ? toThrow(received, args[0], fromRejection) : MATCHERS[name]!(received, ...args);
  if (v.pass === negate) throw new Error(`expected ${name === 'toThrow' ? 'the call' : show(received)} ${negate ? 'not ' : ''}${v.says}`);
}

type Mode = 'value' | 'resolves' | 'rejects';

function matchers(actual: unknown, negate: boolean, mode: Mode): unknown {
  return new Proxy(
    {},
    {
      get(_t, prop) {
        if (prop === 'not') return matchers(actual, !negate, mode);
        if (prop === 'resolves' || prop === 'rejects') return matchers(actual, negate, prop);
        if (prop === 'then') return undefined; // not a thenable
        const name = String(prop);
        if (name !== 'toThrow' && !(name in MATCHERS))
          throw new Error(`expect(...).${name} is not in the contract harness (services/kit/src/contract/expect.ts)`);
        return (...args: unknown[]) => {
          if (mode === 'value') return judge(name, actual, args, negate, false);
          return Promise.resolve(actual).then(
            (value) => {
              if (mode === 'rejects') throw new Error(`expected a rejection, the promise resolved to ${show(value)}`);
              judge(name, value, args, negate, false);
            },
            (error: unknown) => {
              if (mode === 'resolves') throw new Error(`expected the promise to resolve, it rejected: ${messageOf(error)}`);
              judge(name, error, args, negate, true);
            },
          );
        };
      },
    },
  );
}

export const miniExpect = Object.assign((actual: unknown) => matchers(actual, false, 'value'), {
  arrayContaining: (items: unknown[]): Asymmetric => ({
    asymmetricMatch: (other) => Array.isArray(other) && items.every((x) => other.some((y) => equals(y, x))),
    toString: () => `ArrayContaining ${show(items)}`,
  }),
  any: (cls: new (...a: unknown[]) => unknown): Asymmetric => ({
    asymmetricMatch: (other) =>
      cls === (String as unknown)
        ? typeof other === 'string'
        : cls === (Number as unknown)
          ? typeof other === 'number'
          : cls === (Boolean as unknown)
            ? typeof other === 'boolean'
            : other instanceof cls,
    toString: () => `Any<${cls.name}>`,
  }),
});
