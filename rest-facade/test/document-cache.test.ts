/** rest.yaml parsed once (src/document-cache.ts): a parse is used only for the exact YAML it came from. */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseRestYaml, restDocumentOf, writeRestDocumentCache } from '../src/document-cache.js';
import { REST_DOCUMENT_PATH } from '../src/document.js';

const dir = mkdtempSync(join(tmpdir(), 'rest-doc-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const urlOf = (path: string) => pathToFileURL(`${path}/`);

test("the build's parse is the parsed rest.yaml, found first, and used for that text only", () => {
  const [built, memo] = [join(dir, 'built'), join(dir, 'memo-1')];
  writeRestDocumentCache(REST_DOCUMENT_PATH, urlOf(built));
  const [file] = readdirSync(built);
  expect(file).toMatch(/^rest-document-[0-9a-f]{64}\.json$/);
  const text = readFileSync(REST_DOCUMENT_PATH, 'utf8');
  // Marked, to tell a read from a parse: the build's file answers, and no memo is written.
  writeFileSync(join(built, file!), JSON.stringify({ openapi: '3.1.0', built: true }));
  expect(restDocumentOf(text, [urlOf(built), urlOf(memo)])).toEqual({ openapi: '3.1.0', built: true });
  expect(() => readdirSync(memo)).toThrow();
  // A YAML changed after the build (one more character) is parsed, never answered from the build's file.
  expect(restDocumentOf(`${text}\n`, [urlOf(built), urlOf(memo)])).toEqual(parseRestYaml(text));
});

test('a YAML with a key twice is refused, at build time or at a start', () => {
  const path = join(dir, 'dup.yaml');
  writeFileSync(path, 'openapi: 3.1.0\nopenapi: 3.1.1\n');
  expect(() => writeRestDocumentCache(path, urlOf(join(dir, 'dup')))).toThrow(/unique/i);
  expect(() => restDocumentOf(readFileSync(path, 'utf8'), [urlOf(join(dir, 'dup'))])).toThrow(/unique/i);
});

test('a start from sources keeps its parse by content: the same text is read back, another text is parsed', () => {
  const memo = join(dir, 'memo');
  const text = 'openapi: 3.1.0\ninfo: { title: memo, version: "1" }\n';
  expect(restDocumentOf(text, [urlOf(join(dir, 'no-build')), urlOf(memo)])).toEqual(parseRestYaml(text));
  const [file] = readdirSync(memo);
  expect(file).toMatch(/^rest-document-[0-9a-f]{64}\.json$/);
  // The next start with that text reads it (marked here to tell it from a parse) ...
  writeFileSync(join(memo, file!), JSON.stringify({ openapi: '3.1.0', marked: true }));
  expect(restDocumentOf(text, [urlOf(memo)])).toEqual({ openapi: '3.1.0', marked: true });
  // ... a changed text never meets it, and gets its own file.
  expect(restDocumentOf(`${text}# edited\n`, [urlOf(memo)])).toEqual(parseRestYaml(text));
  expect(readdirSync(memo)).toHaveLength(2);
});

test('without a writable place the document is parsed all the same', () => {
  const readOnly = join(dir, 'read-only');
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o500);
  const text = 'openapi: 3.1.0\n';
  // (As root the directory stays writable; either way the answer is the parse.)
  expect(restDocumentOf(text, [urlOf(join(readOnly, 'sub'))])).toEqual(parseRestYaml(text));
});
