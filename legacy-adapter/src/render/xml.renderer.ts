/**
 * XML output of legacy responses. A JSON-like value becomes one root element:
 *   object -> one child element per key, in key order;
 *   array  -> one child element per item, named by `item` (the root) or by singularising the key
 *             (`tags` -> `tag`, `categories` -> `category`, otherwise `item`);
 *   null / undefined -> an empty element with nil="true" (the field stays, so the field list and
 *             order match the JSON form exactly);
 *   boolean, number -> text (`true`/`false`; non-finite numbers are nil).
 * Keys that are not safe XML names (possible once user-defined keys appear, e.g. data tables) are
 * written as `<entry key="...">`. Text is XML-escaped, and characters XML 1.0 cannot carry at all
 * (control characters, lone surrogates, U+FFFE/F) become U+FFFD so the document stays well-formed.
 */
export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';
export const XML_TYPE = 'application/xml; charset=utf-8';

const NAME = /^[A-Za-z_][\w.-]{0,127}$/;
// Matching control characters is the point: XML 1.0 cannot carry them, even escaped.
// eslint-disable-next-line no-control-regex
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A usable element name: a plain XML name that does not start with `xml` (reserved). */
export const isSafeElementName = (name: string): boolean => NAME.test(name) && !/^xml/i.test(name);

export function singular(key: string): string {
  if (/ies$/.test(key) && key.length > 3) return `${key.slice(0, -3)}y`;
  if (/[^s]s$/.test(key)) return key.slice(0, -1);
  return 'item';
}

function open(name: string, attrs = ''): [string, string] {
  return isSafeElementName(name) ? [`<${name}${attrs}`, `</${name}>`] : [`<entry key="${escapeXml(name)}"${attrs}`, '</entry>'];
}

function element(name: string, value: unknown, out: string[], depth: number): void {
  if (depth > 64) throw new Error('value too deeply nested for XML output');
  if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value))) {
    out.push(`${open(name, ' nil="true"')[0]}/>`);
    return;
  }
  const [start, end] = open(name);
  if (Array.isArray(value)) {
    const item = singular(name);
    out.push(`${start}>`);
    for (const v of value) element(item, v, out, depth + 1);
    out.push(end);
  } else if (typeof value === 'object') {
    out.push(`${start}>`);
    for (const [k, v] of Object.entries(value)) element(k, v, out, depth + 1);
    out.push(end);
  } else {
    out.push(`${start}>${escapeXml(String(value))}${end}`);
  }
}

/**
 * Renders `value` as a document with root element `root`. For a list pass `item` to name its
 * elements (`<devices><device>...</device></devices>`).
 */
export function renderXml(root: string, value: unknown, item?: string): string {
  const out: string[] = [XML_DECLARATION];
  if (Array.isArray(value) && item) {
    const [start, end] = open(root);
    out.push(`${start}>`);
    for (const v of value) element(item, v, out, 1);
    out.push(end);
  } else {
    element(root, value, out, 0);
  }
  return out.join('');
}
