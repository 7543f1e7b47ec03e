import { AppError } from '@pylon/kit';
import { parseJsonBody } from '../src/body/json.parser.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : 'other';
  }
  return undefined;
};

describe('parseJsonBody', () => {
  it('parses ordinary bodies', () => {
    expect(parseJsonBody('{"name":"x","tags":["a"],"n":{"m":1}}')).toEqual({ name: 'x', tags: ['a'], n: { m: 1 } });
  });

  it('refuses prototype keys at any depth', () => {
    for (const body of ['{"__proto__":{"x":1}}', '{"a":{"constructor":{"prototype":{"x":1}}}}', '[{"prototype":1}]', '{"a":[[{"__proto__":null}]]}']) {
      expect(code(() => parseJsonBody(body))).toBe('BAD_USER_INPUT');
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses malformed JSON and deep nesting', () => {
    expect(code(() => parseJsonBody('{"a":'))).toBe('BAD_USER_INPUT');
    expect(code(() => parseJsonBody('['.repeat(200) + ']'.repeat(200)))).toBe('BAD_USER_INPUT');
    expect(() => parseJsonBody('['.repeat(32) + ']'.repeat(32))).not.toThrow();
  });
});
