/**
 * How guessable a client-chosen registration key is. A key is the screen's only credential, so a
 * player that picks its own must pick one as hard to guess as the 128-bit keys the service
 * generates; length and alphabet alone do not say that ("aaaa...", "abab...", "abcd...").
 *
 * The estimate is deliberately simple and conservative (in the manner of zxcvbn's sequence and
 * repeat matchers, without dictionaries): each character costs the bits of the alphabet the key
 * draws from (classes present: lower, upper, digits, - and _), unless it continues a pattern (the
 * same character again, a step of the same size as the step before, or a pair of characters seen
 * earlier in the key), which costs one bit. The result is also capped by the Shannon entropy of the
 * key's own character frequencies times its length (small alphabets: "0101...", "abcabc...").
 */

/** Bits a client-chosen key must reach. Generated keys have 128; a random 32-character hex key estimates at about 110. */
export const MIN_CHOSEN_KEY_BITS = 80;

function alphabetSize(key: string): number {
  let size = 0;
  if (/[a-z]/.test(key)) size += 26;
  if (/[A-Z]/.test(key)) size += 26;
  if (/[0-9]/.test(key)) size += 10;
  if (/[-_]/.test(key)) size += 2;
  if (/[^A-Za-z0-9_-]/.test(key)) size += 33;
  return Math.max(size, 2);
}

function continuesPattern(codes: number[], i: number, seenPairs: Set<number>): boolean {
  if (i === 0) return false;
  const pair = codes[i - 1]! * 0x110000 + codes[i]!;
  const seen = seenPairs.has(pair);
  seenPairs.add(pair);
  if (codes[i] === codes[i - 1]) return true;
  if (i >= 2 && codes[i]! - codes[i - 1]! === codes[i - 1]! - codes[i - 2]! && Math.abs(codes[i]! - codes[i - 1]!) <= 3) return true;
  // The same two characters earlier in the key: this one repeats a fragment.
  return seen;
}

function shannonBits(key: string): number {
  const counts = new Map<string, number>();
  for (const c of key) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / key.length) * Math.log2(n / key.length);
  return perChar * key.length;
}

/** Estimated bits of guessing work for `key` (see the top of this file). */
export function estimateKeyEntropy(key: string): number {
  if (!key) return 0;
  const codes = Array.from(key, (c) => c.codePointAt(0)!);
  const perChar = Math.log2(alphabetSize(key));
  const seenPairs = new Set<number>();
  let bits = 0;
  for (let i = 0; i < codes.length; i++) bits += continuesPattern(codes, i, seenPairs) ? 1 : perChar;
  return Math.min(bits, shannonBits(key));
}
