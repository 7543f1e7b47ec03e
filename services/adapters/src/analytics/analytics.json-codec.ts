/**
 * The JSONEachRow codec both analytics adapters use (rows in, rows out), so chDB and the
 * ClickHouse server return identical shapes.
 */
import { analyticsError } from './analytics.shared.js';

const bigintSafe = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : value);

/** One JSON object per row, newline-terminated. `Date` → ISO string, `bigint` → decimal string. */
export function toJsonEachRowText(rows: readonly Record<string, unknown>[]): string {
  let out = '';
  try {
    for (const row of rows) out += JSON.stringify(row) + '\n';
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    out = '';
    try {
      for (const row of rows) out += JSON.stringify(row, bigintSafe) + '\n';
    } catch (e2) {
      throw analyticsError('BAD_USER_INPUT', 'analytics rows are not serialisable', e2, { op: 'insert' });
    }
  }
  return out;
}

export const toJsonEachRow = (rows: readonly Record<string, unknown>[]): Buffer => Buffer.from(toJsonEachRowText(rows), 'utf8');

/** Stringifies one row (bigint-safe); the server client's `json.stringify` hook. */
export function stringifyRow(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    return JSON.stringify(value, bigintSafe);
  }
}

/**
 * A bare integer of 16+ digits in value position. Only then can an integer exceed 2^53, so only
 * then is the slower lossless path needed (a false hit inside a string is harmless, just slower).
 */
const MAYBE_UNSAFE_INT = /[:,[]-?\d{16,}[,\]}]/;

/**
 * Quotes bare integers beyond Number.MAX_SAFE_INTEGER so JSON.parse keeps them exact (as strings).
 * Walks the text outside string literals only; floats and safe integers are left alone.
 */
export function quoteUnsafeIntegers(text: string): string {
  const parts: string[] = [];
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else if (d === 34) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      let integer = true;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d >= 48 && d <= 57) j++;
        else if (d === 46 /* . */ || d === 101 /* e */ || d === 69 /* E */ || d === 43 /* + */ || d === 45) {
          integer = false;
          j++;
        } else break;
      }
      if (integer && j - i >= 16 && !Number.isSafeInteger(Number(text.slice(i, j)))) {
        parts.push(text.slice(last, i), '"', text.slice(i, j), '"');
        last = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join('');
}

/**
 * Parses JSONEachRow output. Integers come back as numbers when safe and as decimal strings
 * when beyond ±2^53 (never silently rounded). Empty output → [].
 */
export function parseJsonEachRow<T>(text: string): T[] {
  const body = text.trimEnd();
  if (body.length === 0) return [];
  const safe = MAYBE_UNSAFE_INT.test(body) ? quoteUnsafeIntegers(body) : body;
  // Rows are newline-separated and JSON strings never hold a raw newline: one parse for all rows.
  return JSON.parse('[' + safe.replaceAll('\n', ',') + ']') as T[];
}
