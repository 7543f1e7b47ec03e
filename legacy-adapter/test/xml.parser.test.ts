import { AppError } from '@pylon/kit';
import { decodeXmlText, parseXmlBody } from '../src/body/xml.parser.js';

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : `not an AppError: ${String(e)}`;
  }
  return undefined;
};

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<device><name>&lol9;</name></device>`;

const XXE = `<?xml version="1.0"?><!DOCTYPE device [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><device><name>&xxe;</name></device>`;

const nested = (depth: number) => `${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`;

describe('parseXmlBody', () => {
  it('returns the content of the root element, leaves as strings', () => {
    const body = parseXmlBody(
      '<?xml version="1.0" encoding="UTF-8"?>\n<device>\n  <name>Lobby</name>\n  <take>12</take>\n  <tags><tag>a</tag><tag>b</tag></tags>\n  <empty/>\n</device>',
    );
    expect(body).toEqual({ root: 'device', value: { name: 'Lobby', take: '12', tags: { tag: ['a', 'b'] }, empty: '' } });
  });

  it('decodes the predefined entities and character references, keeps CDATA verbatim', () => {
    const { value } = parseXmlBody('<a><b>A &amp; B &lt;c&gt; &#65;&#x42; &quot;&apos;</b><c><![CDATA[x &amp; <y>]]></c></a>');
    expect(value).toEqual({ b: 'A & B <c> AB "\'', c: 'x &amp; <y>' });
  });

  it('refuses the billion-laughs bomb before expanding anything, within milliseconds', () => {
    const start = performance.now();
    expect(code(() => parseXmlBody(BILLION_LAUGHS))).toBe('BAD_USER_INPUT');
    expect(performance.now() - start).toBeLessThan(50);
  });

  it('refuses external entities (XXE) and any DOCTYPE, whatever the case or spacing', () => {
    expect(code(() => parseXmlBody(XXE))).toBe('BAD_USER_INPUT');
    expect(code(() => parseXmlBody('<!doctype a><a/>'))).toBe('BAD_USER_INPUT');
    expect(code(() => parseXmlBody('<a><!-- <!DOCTYPE x> --></a>'))).toBe('BAD_USER_INPUT');
    expect(() => parseXmlBody(XXE)).toThrow(/DTD/);
  });

  it('refuses undeclared entities and bare ampersands', () => {
    expect(code(() => parseXmlBody('<a>&xxe;</a>'))).toBe('BAD_USER_INPUT');
    expect(code(() => parseXmlBody('<a>&#0;</a>'))).toBe('BAD_USER_INPUT');
    expect(code(() => parseXmlBody('<a>&#xD800;</a>'))).toBe('BAD_USER_INPUT');
  });

  it('caps nesting: 32 levels pass, 33 and 200 are refused quickly', () => {
    expect(() => parseXmlBody(nested(32))).not.toThrow();
    expect(code(() => parseXmlBody(nested(33)))).toBe('BAD_USER_INPUT');
    const start = performance.now();
    expect(() => parseXmlBody(nested(200))).toThrow(/nested deeper than 32/);
    expect(performance.now() - start).toBeLessThan(50);
    expect(code(() => parseXmlBody(nested(100_000)))).toBe('BAD_USER_INPUT');
  });

  it('refuses prototype keys as element names and leaves Object.prototype alone', () => {
    for (const name of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty']) {
      expect(code(() => parseXmlBody(`<a><${name}><x>polluted</x></${name}></a>`))).toBe('BAD_USER_INPUT');
      expect(code(() => parseXmlBody(`<${name}><x>polluted</x></${name}>`))).toBe('BAD_USER_INPUT');
    }
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses malformed documents and more than one root', () => {
    for (const text of ['', 'text', '<a><b>1</b>', '<a></b>', '<a/><b/>', '<a/><a/>', '<a>text<b/></a>']) {
      expect(code(() => parseXmlBody(text))).toBe('BAD_USER_INPUT');
    }
  });
});

describe('decodeXmlText', () => {
  it('expands in one pass: an encoded entity is not expanded twice', () => {
    expect(decodeXmlText('&amp;lt;')).toBe('&lt;');
    expect(decodeXmlText('&#x1F600;')).toBe('\u{1F600}');
  });
});
