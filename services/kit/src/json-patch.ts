/**
 * JSON Patch (RFC 6902) over the writable view of a record, with fast-json-patch >= 3.1.1
 * (prototype modifications banned). Before anything is applied, every path (and `from`) is checked:
 * a prototype segment anywhere (`/__proto__/x`, `/constructor/prototype/x`) and a read-only or
 * unknown first segment are refused with BAD_USER_INPUT naming the path, so nothing changes.
 * The patched result is then validated by the caller as a whole (types, lengths, unknown fields).
 */
import jsonpatch from 'fast-json-patch';
import { AppError } from './errors.js';

/** Keys that reach an object's prototype: never accepted in a path or a value. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Throws BAD_USER_INPUT when a JSON value holds a prototype key or nests deeper than maxDepth (patch values, event properties). */
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

export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
  from?: string | null;
}

export interface PatchRules {
  /** Top-level members that may be changed. */
  writable: ReadonlySet<string>;
  /** Top-level members that exist but are owned by the service (named in the refusal). */
  readOnly: ReadonlySet<string>;
}

export const MAX_PATCH_OPERATIONS = 100;
const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

const bad = (message: string, field = 'operations') => new AppError('BAD_USER_INPUT', message, { field });

/** `/location/city` -> ['location', 'city'] (RFC 6901 unescaping). */
function segmentsOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function checkPointer(pointer: unknown, rules: PatchRules, i: number, member: 'path' | 'from'): void {
  const field = `operations[${i}].${member}`;
  if (typeof pointer !== 'string' || pointer.length > 500) throw bad(`${field} must be a JSON Pointer string`, field);
  if (pointer === '' || !pointer.startsWith('/')) throw bad(`${field} '${pointer.slice(0, 100)}' must name a member, e.g. /name`, field);
  const segments = segmentsOf(pointer);
  const forbidden = segments.find((s) => PROTOTYPE_KEYS.has(s));
  if (forbidden !== undefined) throw bad(`${field} '${pointer.slice(0, 100)}' is not allowed: '${forbidden}' cannot be patched`, field);
  const top = segments[0]!;
  if (rules.readOnly.has(top)) throw bad(`${field} '${pointer.slice(0, 100)}' is read-only`, field);
  if (!rules.writable.has(top)) throw bad(`${field} '${pointer.slice(0, 100)}' names no writable field; writable: ${[...rules.writable].join(', ')}`, field);
}

/** Checks the operations (all of them, before any is applied) and applies them to a copy of `doc`. */
export function applyJsonPatch<T extends object>(doc: T, operations: unknown, rules: PatchRules): Record<string, unknown> {
  if (!Array.isArray(operations) || operations.length === 0) throw bad('the patch must be a non-empty array of operations');
  if (operations.length > MAX_PATCH_OPERATIONS) throw bad(`a patch may hold at most ${MAX_PATCH_OPERATIONS} operations`);
  const ops = operations.map((raw, i): PatchOperation => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad(`operations[${i}] must be an object with op and path`, `operations[${i}]`);
    const o = raw as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      if (!['op', 'path', 'value', 'from'].includes(key))
        throw bad(`operations[${i}] has an unknown member '${key.slice(0, 50)}'`, `operations[${i}].${key.slice(0, 50)}`);
    }
    if (typeof o.op !== 'string' || !OPS.has(o.op)) throw bad(`operations[${i}].op must be one of: ${[...OPS].join(', ')}`, `operations[${i}].op`);
    checkPointer(o.path, rules, i, 'path');
    if (o.op === 'move' || o.op === 'copy') checkPointer(o.from, rules, i, 'from');
    if ((o.op === 'add' || o.op === 'replace' || o.op === 'test') && !('value' in o))
      throw bad(`operations[${i}].value is required for ${o.op}`, `operations[${i}].value`);
    if ('value' in o) assertPlainJson(o.value, `operations[${i}].value`);
    return { op: o.op, path: o.path as string, ...('value' in o ? { value: o.value } : {}), ...(typeof o.from === 'string' ? { from: o.from } : {}) };
  });
  try {
    // validate: true checks each operation against the document; mutateDocument: false works on a
    // copy; banPrototypeModifications: true is the library's own guard (kept on, beside ours).
    return jsonpatch.applyPatch(structuredClone(doc), ops as jsonpatch.Operation[], true, false, true).newDocument as Record<string, unknown>;
  } catch (e) {
    const err = e as { name?: string; index?: number; operation?: PatchOperation };
    const at = typeof err.index === 'number' ? `operations[${err.index}]` : 'operations';
    const path = err.operation?.path ?? '';
    if (err.name === 'TEST_OPERATION_FAILED') throw new AppError('UNPROCESSABLE', `${at}: test failed, ${path} does not hold the given value`, { field: at });
    if (
      err.name === 'OPERATION_PATH_UNRESOLVABLE' ||
      err.name === 'OPERATION_FROM_UNRESOLVABLE' ||
      err.name === 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX' ||
      err.name === 'OPERATION_VALUE_OUT_OF_BOUNDS'
    ) {
      throw new AppError('UNPROCESSABLE', `${at}: ${path} cannot be applied to the current record (${String((e as Error).message).split('\n')[0]})`, {
        field: at,
      });
    }
    throw bad(`${at} is invalid: ${String((e as Error).message).split('\n')[0]}`, at);
  }
}
