/**
 * How guessable a client-chosen registration key is. A key is the screen's only credential, so a
 * player that picks its own must pick one as hard to guess as the 128-bit keys the service
 * generates; length and alphabet alone do not say that ("aaaa...", "abab...", "abcd...").
 *
 * The estimate is deliberately simple and conservative (in the manner of zxcvbn's sequence and
 * repeat matchers, without dictionaries): each character costs the bits of the alphabet the key
 * draws from (classes present: lower, upper, digits, - and _), unless it continues a pattern (the
 * same character again, a step of the same size as the step before, a neighbour on a US keyboard
 * (a keyboard walk such as "qwerty" or "1qaz2wsx", zxcvbn's spatial matcher), or a pair of
 * characters seen earlier in the key), which costs one bit. The result is also capped by the Shannon entropy of the
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

/** US keyboard rows, unshifted and shifted, with each row's offset in key widths. */
const KEYBOARD_ROWS: readonly [string, string, number][] = [
  ['`1234567890-=', '~!@#$%^&*()_+', 0],
  ['qwertyuiop[]\\', 'QWERTYUIOP{}|', 1.5],
  ["asdfghjkl;'", 'ASDFGHJKL:"', 1.75],
  ['zxcvbnm,./', 'ZXCVBNM<>?', 2.25],
];
const KEY_AT = new Map<number, { row: number; x: number }>();
KEYBOARD_ROWS.forEach(([plain, shifted, offset], row) => {
  for (const keys of [plain, shifted]) Array.from(keys).forEach((c, i) => KEY_AT.set(c.codePointAt(0)!, { row, x: offset + i }));
});

/** Whether two characters sit on touching keys (same row side by side, or the row above or below). */
function keyboardNeighbours(a: number, b: number): boolean {
  const p = KEY_AT.get(a);
  const q = KEY_AT.get(b);
  if (!p || !q || (p.row === q.row && p.x === q.x)) return false;
  return p.row === q.row ? Math.abs(p.x - q.x) === 1 : Math.abs(p.row - q.row) === 1 && Math.abs(p.x - q.x) <= 1;
}

/** What the patterns remember while reading a key. */
interface Seen {
  pairs: Set<number>;
  /** The last jump between keyboard walks ("1qaz" to "2wsx": the same jump each time), as "rows,keys". */
  jump?: string;
}

function continuesPattern(codes: number[], i: number, seen: Seen): boolean {
  if (i === 0) return false;
  const pair = codes[i - 1]! * 0x110000 + codes[i]!;
  const repeated = seen.pairs.has(pair);
  seen.pairs.add(pair);
  if (codes[i] === codes[i - 1]) return true;
  if (keyboardNeighbours(codes[i - 1]!, codes[i]!)) return true;
  const [p, q] = [KEY_AT.get(codes[i - 1]!), KEY_AT.get(codes[i]!)];
  if (p && q) {
    const jump = `${q.row - p.row},${q.x - p.x}`;
    const again = jump === seen.jump;
    seen.jump = jump;
    if (again) return true;
  }
  if (i >= 2 && codes[i]! - codes[i - 1]! === codes[i - 1]! - codes[i - 2]! && Math.abs(codes[i]! - codes[i - 1]!) <= 3) return true;
  // The same two characters earlier in the key: this one repeats a fragment.
  return repeated;
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
  const seen: Seen = { pairs: new Set() };
  let bits = 0;
  for (let i = 0; i < codes.length; i++) bits += continuesPattern(codes, i, seen) ? 1 : perChar;
  return Math.min(bits, shannonBits(key));
}
