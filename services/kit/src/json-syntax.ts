/**
 * Where a JSON text stops being JSON (RFC 8259), for the messages of a malformed body: the same
 * position, line and column on every Node version. JSON.parse's own message cannot be used: its
 * wording changed between V8 releases, some versions name no position, and newer ones quote a
 * piece of the body, which may hold a credential.
 *
 * A scanner with an explicit stack (no recursion: a body nested 100,000 deep is one loop).
 */

export interface JsonSyntaxProblem {
  /** 0-based offset of the first character that cannot continue the text (its length at an early end). */
  position: number;
  /** 1-based line and column of `position`. */
  line: number;
  column: number;
  /** What was expected or found, never the body's own characters beyond one. */
  reason: string;
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/** The first syntax problem of `text`, or null when it is JSON. */
export function jsonSyntaxProblem(text: string): JsonSyntaxProblem | null {
  let i = 0;
  const n = text.length;
  const fail = (reason: string): JsonSyntaxProblem => {
    const before = text.slice(0, i);
    const line = before.split('\n').length;
    const column = i - (before.lastIndexOf('\n') + 1) + 1;
    return { position: i, line, column, reason };
  };
  const found = () => (i >= n ? 'the body ended' : `found ${JSON.stringify(text[i])}`);
  const skipWs = () => {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
  };
  /** Reads one string from the opening quote; a problem, or null. */
  const string = (): JsonSyntaxProblem | null => {
    i++;
    for (;;) {
      if (i >= n) return fail('unterminated string: the body ended');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return null;
      }
      if (c < 0x20) return fail('control character in a string (escape it)');
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return ((i += 2), fail('\\u must be followed by four hex digits'));
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) i += 2;
        else return ((i += 1), fail('invalid escape in a string'));
      } else i++;
    }
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const number = (): JsonSyntaxProblem | null => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail(`expected a value, ${found()}`);
    i += m[0].length;
    return null;
  };
  // What may come next: a value, or after one the closer/comma of the container on the stack.
  const stack: ('{' | '[')[] = [];
  type Expect = 'value' | 'after' | 'key' | 'firstKey' | 'firstValue';
  let expect: Expect = 'value';
  /** Steps over an opening bracket: its first key or value (or its end) comes next. */
  const open = (bracket: '{' | '['): Expect => {
    stack.push(bracket);
    i++;
    return bracket === '{' ? 'firstKey' : 'firstValue';
  };
  /** Steps over the closing bracket of the innermost container: what follows a value comes next. */
  const close = (): Expect => {
    stack.pop();
    i++;
    return 'after';
  };
  for (;;) {
    skipWs();
    if (expect === 'value' || expect === 'firstValue') {
      const c = text[i];
      if (expect === 'firstValue' && c === ']') {
        expect = close();
        continue;
      }
      if (c === '{' || c === '[') {
        expect = open(c);
        continue;
      }
      let p: JsonSyntaxProblem | null = null;
      if (c === '"') p = string();
      else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) p = number();
      else {
        const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i));
        if (word) i += word.length;
        else return fail(`expected a value, ${found()}`);
      }
      if (p) return p;
      expect = 'after';
      continue;
    }
    if (expect === 'key' || expect === 'firstKey') {
      if (expect === 'firstKey' && text[i] === '}') {
        expect = close();
        continue;
      }
      if (text[i] !== '"') return fail(`expected a property name in double quotes, ${found()}`);
      const p = string();
      if (p) return p;
      skipWs();
      if (text[i] !== ':') return fail(`expected ':' after a property name, ${found()}`);
      i++;
      expect = 'value';
      continue;
    }
    // After a value.
    const top = stack[stack.length - 1];
    if (!top) {
      if (i < n) return fail(`unexpected text after the JSON value, ${found()}`);
      return null;
    }
    const c = text[i];
    if (c === ',') {
      i++;
      expect = top === '{' ? 'key' : 'value';
    } else if ((c === '}' && top === '{') || (c === ']' && top === '[')) expect = close();
    else return fail(`expected ',' or '${top === '{' ? '}' : ']'}', ${found()}`);
  }
}

/**
 * "the body is not valid JSON at position 12 (line 1, column 13): expected ..."; a text that is JSON
 * was refused for what it holds (express.json takes only an object or an array at the top).
 */
export function invalidJsonMessage(text: unknown, what = 'the body'): string {
  if (typeof text !== 'string') return `${what} is not valid JSON`;
  const p = jsonSyntaxProblem(text);
  return p ? `${what} is not valid JSON at position ${p.position} (line ${p.line}, column ${p.column}): ${p.reason}` : `${what} must be a JSON object or array`;
}
