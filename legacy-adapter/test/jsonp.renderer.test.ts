import { isValidCallbackName, negotiate } from '../src/http/negotiation.js';
import { renderJson } from '../src/render/json.renderer.js';
import { renderJsonp } from '../src/render/jsonp.renderer.js';

describe('JSONP callback names', () => {
  it('accepts only [\\w$.[\\]], 1 to 128 characters', () => {
    for (const ok of ['handle', 'jQuery123_456', '$cb', 'a.b.c', 'cbs[0]', 'a'.repeat(128)]) expect(isValidCallbackName(ok)).toBe(true);
    for (const bad of ['', 'alert(1)', 'alert(1)//', 'a;b', '</script>', 'a b', 'a\nb', 'a-b', "a'b", 'é', 'a'.repeat(129), 'a'.repeat(10_000)]) {
      expect(isValidCallbackName(bad)).toBe(false);
    }
  });
});

describe('renderJsonp', () => {
  it('wraps JSON in a guarded call', () => {
    expect(renderJsonp('handle', { a: 1 })).toBe(`/**/ typeof handle === 'function' && handle({"a":1});`);
  });

  it('escapes U+2028, U+2029 and markup characters, and the result is the same value', () => {
    const value = { name: 'line\u2028sep\u2029para </script><!--&' };
    const out = renderJsonp('cb', value);
    const json = out.slice(out.indexOf('cb(') + 3, -2);
    expect(json).not.toMatch(/[\u2028\u2029<>&]/);
    expect(out).toContain('\\u2028');
    expect(out).toContain('\\u2029');
    expect(out).toContain('\\u003c/script\\u003e');
    let seen: unknown;
    new Function('cb', out)((v: unknown) => (seen = v));
    expect(seen).toEqual(value);
    expect(JSON.parse(renderJson(value))).toEqual(value);
  });

  it('refuses to emit an invalid name even if called directly', () => {
    expect(() => renderJsonp('alert(1)//', {})).toThrow();
  });
});

describe('negotiate', () => {
  it('defaults to json, accepts xml and rss case-insensitively', () => {
    expect(negotiate({}, 'GET')).toEqual({ format: 'json' });
    expect(negotiate({ format: 'XML' }, 'GET')).toEqual({ format: 'xml' });
    expect(negotiate({ format: 'rss' }, 'GET')).toEqual({ format: 'rss' });
    expect(negotiate({ callback: 'cb' }, 'GET')).toEqual({ format: 'json', callback: 'cb' });
  });

  it('refuses other formats, repeated parameters, bad names, callback with xml or on POST', () => {
    expect(() => negotiate({ format: 'pdf' }, 'GET')).toThrow(/format/);
    expect(() => negotiate({ format: ['json', 'xml'] }, 'GET')).toThrow(/format/);
    expect(() => negotiate({ callback: 'a;b' }, 'GET')).toThrow(/callback/);
    expect(() => negotiate({ callback: ['a', 'b'] }, 'GET')).toThrow(/callback/);
    expect(() => negotiate({ callback: 'cb', format: 'xml' }, 'GET')).toThrow(/format=json/);
    expect(() => negotiate({ callback: 'cb' }, 'POST')).toThrow(/GET/);
  });
});
