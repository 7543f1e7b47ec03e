/** Input checks of the devices domain; zod parsing with field-naming errors is kit's `parseInput`. */
import { AppError } from '@pylon/kit';

export { inputError, parseInput } from '@pylon/kit';

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
