/**
 * XML request bodies, parsed with fast-xml-parser under a no-DTD policy:
 * - any DOCTYPE or ENTITY declaration is refused before parsing, so billion-laughs and external
 *   entities (XXE, `SYSTEM "file:///etc/passwd"`) never reach an entity expander; the parser also
 *   runs with `processEntities: false`;
 * - the document must be well-formed (XMLValidator) and nest at most `maxDepth` elements
 *   (`maxNestedTags`, then the safe-tree walk);
 * - element names `__proto__`, `constructor`, `prototype` (and the other names fast-xml-parser
 *   calls dangerous, e.g. `hasOwnProperty`) are refused, not renamed.
 * Only the five predefined entities and character references are decoded, by us, in one pass.
 * Attributes are ignored. Text inside CDATA is kept verbatim; when an element mixes text and
 * CDATA, the text parts come first (legacy bodies are data, not documents).
 *
 * The result is the content of the root element, so `<device><name>x</name></device>` and the
 * JSON body `{"name":"x"}` reach a route identically; the root's name is returned alongside.
 * Leaves are strings (no number guessing); repeated elements become arrays; empty elements are ''.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError, type JsonObject } from '@pylon/kit';
import { assertSafeTree, DEFAULT_MAX_DEPTH } from './safe-tree.js';

export interface XmlBody {
  root: string;
  value: unknown;
}

const TEXT = '#text';
const CDATA = '#cdata';
const DECLARATION = /<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)/i;
const ENTITY_REF = /&(?:(lt|gt|amp|quot|apos)|#(\d{1,7})|#x([0-9a-fA-F]{1,6}));|&/g;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

const bad = (message: string) => new AppError('BAD_USER_INPUT', message);

function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/** Decodes &lt; &gt; &amp; &quot; &apos; and &#N; / &#xN;. Anything else with `&` is not well-formed here. */
export function decodeXmlText(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY_REF, (match, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name) return PREDEFINED[name]!;
    const cp = dec ? Number.parseInt(dec, 10) : hex ? Number.parseInt(hex, 16) : Number.NaN;
    if (!Number.isNaN(cp) && isXmlChar(cp)) return String.fromCodePoint(cp);
    throw bad(match === '&' ? 'the XML body holds an unescaped & or an undeclared entity' : `the XML body holds an invalid character reference ${match}`);
  });
}

const parser = (maxDepth: number) =>
  new XMLParser({
    processEntities: false,
    htmlEntities: false,
    ignoreAttributes: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    parseTagValue: false,
    trimValues: true,
    cdataPropName: CDATA,
    maxNestedTags: maxDepth,
    onDangerousProperty: (name) => {
      throw bad(`the element name '${name}' is not allowed`);
    },
  });

const asStrings = (v: unknown): string[] => (Array.isArray(v) ? v : [v]).map((x) => (typeof x === 'string' ? x : ''));

/** Decodes text, keeps CDATA verbatim and folds text-only elements into strings (iteratively). */
function normalise(value: unknown): unknown {
  const root = { v: value };
  const stack: { holder: JsonObject | unknown[]; key: string | number }[] = [{ holder: root, key: 'v' }];
  while (stack.length) {
    const { holder, key } = stack.pop()!;
    const v = (holder as Record<string | number, unknown>)[key];
    if (typeof v === 'string') {
      (holder as Record<string | number, unknown>)[key] = decodeXmlText(v);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ holder: v, key: i });
    } else if (v && typeof v === 'object') {
      const obj = v as JsonObject;
      const keys = Object.keys(obj);
      if (keys.length && keys.every((k) => k === TEXT || k === CDATA)) {
        const text = asStrings(obj[TEXT] ?? [])
          .map(decodeXmlText)
          .join('');
        (holder as Record<string | number, unknown>)[key] = text + asStrings(obj[CDATA] ?? []).join('');
        continue;
      }
      if (TEXT in obj || CDATA in obj) throw bad('the XML body mixes text and elements in one element');
      for (const k of keys) stack.push({ holder: obj, key: k });
    }
  }
  return root.v;
}

export function parseXmlBody(text: string, opts: { maxDepth?: number } = {}): XmlBody {
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (DECLARATION.test(text)) throw bad('DTDs are not accepted: the XML body must not contain DOCTYPE or ENTITY declarations');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw bad(`the request body is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  let parsed: unknown;
  try {
    parsed = parser(maxDepth).parse(text);
  } catch (e) {
    if (e instanceof AppError) throw e;
    const message = e instanceof Error ? e.message : '';
    if (/nested tags/i.test(message)) throw bad(`the request body is nested deeper than ${maxDepth} levels`);
    if (/\[SECURITY\]/.test(message)) throw bad('the XML body uses an element name that is not allowed (__proto__, constructor, prototype)');
    throw bad('the request body is not well-formed XML');
  }
  const roots = parsed && typeof parsed === 'object' ? Object.keys(parsed) : [];
  if (roots.length !== 1 || Array.isArray((parsed as JsonObject)[roots[0]!])) throw bad('the XML body must have exactly one root element');
  const root = roots[0]!;
  // Key and depth checks on the raw tree: `{ root: { child: ... } }` puts element n's content at
  // depth n, so at most maxDepth nested elements pass (the parser's own cap is one looser).
  assertSafeTree(parsed, maxDepth);
  return { root, value: normalise((parsed as JsonObject)[root]) };
}
