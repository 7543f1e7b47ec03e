/**
 * The invariant every parsed request body holds before a route sees it: no key that can reach
 * an object's prototype when later merged or assigned (`__proto__`, `constructor`, `prototype`),
 * and no deeper nesting than the cap. Walks iteratively, so a hostile depth cannot overflow the stack.
 */
import { AppError, type JsonObject } from '@pylon/kit';

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
export const DEFAULT_MAX_DEPTH = 32;

export function assertSafeTree(value: unknown, maxDepth = DEFAULT_MAX_DEPTH): void {
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length) {
    const { v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) throw new AppError('BAD_USER_INPUT', `the request body is nested deeper than ${maxDepth} levels`);
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ v: item, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (FORBIDDEN_KEYS.has(key)) throw new AppError('BAD_USER_INPUT', `the key '${key}' is not allowed in a request body`);
      stack.push({ v: (v as JsonObject)[key], depth: depth + 1 });
    }
  }
}
