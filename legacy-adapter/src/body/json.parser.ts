/** JSON request bodies: parsed, then held to the safe-tree invariant (no prototype keys, depth cap). */
import { AppError, invalidJsonMessage } from '@pylon/kit';
import { assertSafeTree, DEFAULT_MAX_DEPTH } from './safe-tree.js';

export function parseJsonBody(text: string, opts: { maxDepth?: number } = {}): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('BAD_USER_INPUT', invalidJsonMessage(text, 'the request body'));
  }
  assertSafeTree(value, opts.maxDepth ?? DEFAULT_MAX_DEPTH);
  return value;
}
