/**
 * Input validation with zod, reported as BAD_USER_INPUT naming the field at fault:
 * `location.latitude must be at most 90`, `name is required`, `unknown field 'foo'`.
 * Every subgraph's use cases parse their inputs through here, so messages read the same everywhere.
 */
import { AppError } from './errors.js';
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;

const fieldOf = (path: readonly PropertyKey[], prefix: string) =>
  [prefix, ...path.map(String)]
    .filter(Boolean)
    .join('.')
    .replace(/\.(\d+)(?=\.|$)/g, '[$1]');

function messageOf(issue: Issue, field: string): string {
  const i = issue as Issue & { minimum?: number | bigint; maximum?: number | bigint; origin?: string; expected?: string; input?: unknown; keys?: string[] };
  const name = field || 'the input';
  switch (i.code) {
    case 'invalid_type':
      // zod leaves `input` out of issues unless asked to report it; its message names what it received.
      return ('input' in i ? i.input === undefined : /received undefined$/.test(i.message))
        ? `${name} is required`
        : `${name} must be ${i.expected === 'array' ? 'a list' : `a ${i.expected}`}`;
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
