/**
 * JSON text for legacy responses. `<`, `>`, `&`, U+2028 and U+2029 are written as \u escapes:
 * still the same JSON value, but the text can never close a <script> element, start an HTML
 * comment, or (U+2028/9) end a JavaScript string literal in engines before ES2019.
 */
const UNSAFE = /[<>&\u2028\u2029]/g;
const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

export function renderJson(value: unknown): string {
  return (JSON.stringify(value ?? null) ?? 'null').replace(UNSAFE, escapeChar);
}

export const JSON_TYPE = 'application/json; charset=utf-8';
