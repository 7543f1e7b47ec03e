/**
 * Input validation with zod, reported as the kit's BAD_USER_INPUT naming the field at fault:
 * `location.latitude must be at most 90`, `name is required`, `unknown field 'foo'`.
 */
import { AppError } from '@pylon/kit';
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

const fieldOf = (path: readonly PropertyKey[], prefix: string) =>
  [prefix, ...path.map(String)].filter(Boolean).join('.').replace(/\.(\d+)(?=\.|$)/g, '[$1]');

function messageOf(issue: Issue, field: string): string {
  const i = issue as Issue & { minimum?: number | bigint; maximum?: number | bigint; origin?: string; expected?: string; input?: unknown; keys?: string[] };
  const name = field || 'the input';
  switch (i.code) {
    case 'invalid_type':
      return i.input === undefined ? `${name} is required` : `${name} must be ${i.expected === 'array' ? 'a list' : `a ${i.expected}`}`;
    case 'too_small':
      if (i.origin === 'string') return Number(i.minimum) === 1 ? `${name} must not be empty` : `${name} must be at least ${i.minimum} characters`;
      if (i.origin === 'array') return `${name} must hold at least ${i.minimum} item(s)`;
      return `${name} must be at least ${i.minimum}`;
    case 'too_big':
      if (i.origin === 'string') return `${name} must be at most ${i.maximum} characters`;
      if (i.origin === 'array') return `${name} must hold at most ${i.maximum} item(s)`;
      return `${name} must be at most ${i.maximum}`;
    case 'unrecognized_keys':
      return `unknown field '${[field, i.keys?.[0]].filter(Boolean).join('.')}'`;
    case 'invalid_value':
      return `${name} must be one of: ${((i as { values?: unknown[] }).values ?? []).map(String).join(', ')}`;
    default:
      return `${name} ${i.message.charAt(0).toLowerCase()}${i.message.slice(1)}`;
  }
}

/** The first issue as an AppError; `prefix` names the input object (e.g. `commands[0]`). */
export function inputError(issues: readonly Issue[], prefix = ''): AppError {
  const issue = issues[0];
  if (!issue) return new AppError('BAD_USER_INPUT', 'the input is invalid');
  let field = fieldOf(issue.path, prefix);
  const message = messageOf(issue, field);
  if (issue.code === 'unrecognized_keys' && issue.keys[0]) field = [field, issue.keys[0]].filter(Boolean).join('.');
  return new AppError('BAD_USER_INPUT', message, field ? { field } : {});
}

/** Parses with a zod schema or throws the first problem as BAD_USER_INPUT. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw inputError(r.error.issues, prefix);
}

/** Keys that could reach an object's prototype when a value is merged: refused anywhere in an input. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Throws BAD_USER_INPUT when a JSON value holds a prototype key or nests deeper than maxDepth. */
export function assertPlainJson(value: unknown, field: string, maxDepth = 16): void {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length) {
    const { v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) throw new AppError('BAD_USER_INPUT', `${field} is nested deeper than ${maxDepth} levels`, { field });
    for (const key of Array.isArray(v) ? [] : Object.keys(v)) {
      if (PROTOTYPE_KEYS.has(key)) throw new AppError('BAD_USER_INPUT', `${field} must not contain the key '${key}'`, { field });
    }
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push({ v: child, depth: depth + 1 });
  }
}

/** True for IANA time zone names the runtime knows. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
