import { badInput } from '@pylon/kit';

/**
 * Continuation tokens: the sort key of the last item of a page, as base64url JSON. Opaque to
 * clients; the next page starts strictly after that key, so pages stay consistent while items
 * are added or removed elsewhere.
 */
export type SortKey = (string | number)[];

const MAX_TOKEN_CHARS = 4096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function encodeContinuationToken(key: SortKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** Decodes a token holding `arity` keys; BAD_USER_INPUT naming `field` for anything else. */
export function decodeContinuationToken(token: string, arity: number, field = 'continuationToken'): SortKey {
  const invalid = () => badInput(field, `${field} is not a valid continuation token`);
  if (token.length > MAX_TOKEN_CHARS || !BASE64URL.test(token)) throw invalid();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(key) || key.length !== arity || !key.every((k) => typeof k === 'string' || typeof k === 'number')) throw invalid();
  return key as SortKey;
}
