import { badInput } from '@pylon/kit';

/**
 * Continuation tokens of every keyset-paged list (tables, rows): the order a page was read in and
 * the sort values of its last item, its id last, as base64url JSON. Opaque to clients; the next page
 * starts strictly after that position, so pages stay consistent while items are added or removed
 * elsewhere. A token made for another order is refused rather than read as a position in this one.
 * When the values would make a token longer than MAX_INLINE_CHARS (a sort on a long text), the token
 * names the item instead (`{ ref: id }`) and the list reads its position from the item: such a
 * token is refused, asking to start again, once that item is deleted.
 */
export type Position = (string | number | boolean | null)[];
/** What a token holds: the position itself, or the id of the item whose position it is. */
export type TokenPosition = { position: Position } | { ref: string };

/** Tokens travel in query strings: kept well under the 8-16 KB a server takes for a request line. */
export const MAX_INLINE_CHARS = 1024;
const BASE64URL = /^[A-Za-z0-9_-]{1,4096}$/;

const encode = (key: unknown[]) => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

/** `order`: a label naming the sort (its fields and directions); `position`: the last item's values in it, its id last. */
export function encodeContinuationToken(order: string, position: Position): string {
  const inline = encode([order, ...position]);
  return inline.length <= MAX_INLINE_CHARS ? inline : encode([order, { ref: String(position.at(-1)) }]);
}

const isScalar = (k: unknown) => k === null || ['string', 'number', 'boolean'].includes(typeof k);
const isRef = (k: unknown): k is { ref: string } =>
  typeof k === 'object' && k !== null && Object.keys(k).length === 1 && typeof (k as { ref?: unknown }).ref === 'string';

/** The position a token holds for `order` (`arity` values), or the item it names; BAD_USER_INPUT naming continuationToken for anything else. */
export function decodeContinuationToken(token: string, order: string, arity: number): TokenPosition {
  const invalid = (why: string) => badInput('continuationToken', `continuationToken ${why}`);
  const malformed = () => invalid('is not a valid continuation token');
  if (!BASE64URL.test(token)) throw malformed();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (!Array.isArray(key) || typeof key[0] !== 'string') throw malformed();
  if (key[0] !== order) throw invalid('was made for another sort order; start again without it');
  if (key.length === 2 && isRef(key[1])) return { ref: key[1].ref };
  if (key.length !== arity + 1 || !key.every(isScalar)) throw malformed();
  return { position: key.slice(1) as Position };
}

/** The refusal of a token whose item (see `{ ref }`) is gone. */
export const positionGone = () => badInput('continuationToken', 'continuationToken points after an item that was deleted since; start again without it');
