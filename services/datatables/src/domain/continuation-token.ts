import { badInput } from '@pylon/kit';

/**
 * Continuation tokens of every keyset-paged list (tables, rows): the order a page was read in and
 * the sort values of its last item, as base64url JSON. Opaque to clients; the next page starts
 * strictly after that position, so pages stay consistent while items are added or removed
 * elsewhere. A token made for another order is refused rather than read as a position in this one.
 */
export type Position = (string | number | boolean | null)[];

const BASE64URL = /^[A-Za-z0-9_-]{1,4096}$/;

/** `order`: a label naming the sort (its fields and directions); `position`: the last item's values in it. */
export function encodeContinuationToken(order: string, position: Position): string {
  return Buffer.from(JSON.stringify([order, ...position]), 'utf8').toString('base64url');
}

/** The position a token holds for `order` (`arity` values); BAD_USER_INPUT naming continuationToken for anything else. */
export function decodeContinuationToken(token: string, order: string, arity: number): Position {
  const invalid = (why: string) => badInput('continuationToken', `continuationToken ${why}`);
  const malformed = () => invalid('is not a valid continuation token');
  if (!BASE64URL.test(token)) throw malformed();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (!Array.isArray(key) || !key.every((k) => k === null || ['string', 'number', 'boolean'].includes(typeof k))) throw malformed();
  if (key[0] !== order) throw invalid('was made for another sort order; start again without it');
  if (key.length !== arity + 1) throw malformed();
  return key.slice(1) as Position;
}
