/**
 * jsonSyntaxProblem (issue 35): the position of a malformed body, the same on every Node version.
 * Known answers, then a property: it agrees with JSON.parse on whether a text is JSON, and the
 * text before the position it names is a prefix some JSON text starts with.
 */
import fc from 'fast-check';
import { invalidJsonMessage, jsonSyntaxProblem } from '../../src/json-syntax.js';

const isJson = (t: string) => {
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
};

test('known answers: position, line, column and what was expected', () => {
  expect(jsonSyntaxProblem('{"a": 1,}')).toEqual({ position: 8, line: 1, column: 9, reason: 'expected a property name in double quotes, found "}"' });
  expect(jsonSyntaxProblem('{\n  "a": tru\n}')).toMatchObject({ position: 9, line: 2, column: 8, reason: 'expected a value, found "t"' });
  expect(jsonSyntaxProblem('[{"a":')).toMatchObject({ position: 6, reason: 'expected a value, the body ended' });
  expect(jsonSyntaxProblem('{"a" 1}')).toMatchObject({ position: 5, reason: 'expected \':\' after a property name, found "1"' });
  expect(jsonSyntaxProblem('[1 2]')).toMatchObject({ position: 3, reason: "expected ',' or ']', found \"2\"" });
  expect(jsonSyntaxProblem('{"a":1} x')).toMatchObject({ position: 8, reason: 'unexpected text after the JSON value, found "x"' });
  expect(jsonSyntaxProblem('"ab')).toMatchObject({ position: 3, reason: 'unterminated string: the body ended' });
  expect(jsonSyntaxProblem('')).toMatchObject({ position: 0, reason: 'expected a value, the body ended' });
  expect(jsonSyntaxProblem('[01]')).toMatchObject({ position: 2 });
  for (const ok of ['{}', '[]', ' {"a":[1,-2.5e3,true,false,null,"\\u00e9\\n"]} ', '"x"', '0', '[[[[]]]]'])
    expect([ok, jsonSyntaxProblem(ok)]).toEqual([ok, null]);
  // Deep nesting is one loop, not recursion.
  expect(jsonSyntaxProblem('['.repeat(200_000))).toMatchObject({ position: 200_000 });
});

test('a number of any length is read whole (not cut after 400 characters)', () => {
  const long = `1${'0'.repeat(499)}`;
  expect(jsonSyntaxProblem(long)).toBeNull();
  expect(jsonSyntaxProblem(`[${long}.5e3, ${long}]`)).toBeNull();
  expect(jsonSyntaxProblem(`[${long} x]`)).toMatchObject({ position: 502, reason: "expected ',' or ']', found \"x\"" });
  expect(jsonSyntaxProblem(`[-${long}.]`)).toMatchObject({ position: 502 });
});

test('the message names the position and never quotes more of the body than one character', () => {
  const secret = '{"password": "hunter2" "x": 1}';
  const m = invalidJsonMessage(secret);
  expect(m).toBe("the body is not valid JSON at position 23 (line 1, column 24): expected ',' or '}', found \"\\\"\"");
  expect(m).not.toContain('hunter2');
  expect(invalidJsonMessage('"a string"')).toBe('the body must be a JSON object or array');
  expect(invalidJsonMessage(undefined)).toBe('the body is not valid JSON');
});

test('property: agrees with JSON.parse, and the text before the position is a valid start', () => {
  const texts = fc.oneof(
    fc.json(),
    // JSON with one character changed, inserted or removed: mostly malformed.
    fc.tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', 'x', '0', '\\', ' ', '{', '[', '\n', '-')).map(([t, k, c]) => {
      const at = t.length ? k % t.length : 0;
      return k % 2 ? t.slice(0, at) + c + t.slice(at + 1) : t.slice(0, at) + c + t.slice(at);
    }),
  );
  fc.assert(
    fc.property(texts, (t) => {
      const p = jsonSyntaxProblem(t);
      expect(p === null).toBe(isJson(t));
      if (p) {
        expect(p.position).toBeGreaterThanOrEqual(0);
        expect(p.position).toBeLessThanOrEqual(t.length);
        // The prefix before the fault is the start of some JSON text: its own first problem is the end.
        const q = jsonSyntaxProblem(t.slice(0, p.position));
        if (q) expect(q.position).toBe(p.position);
      }
    }),
    { numRuns: 2000 },
  );
});
