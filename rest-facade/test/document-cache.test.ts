/** rest.yaml parsed at build time (src/document-cache.ts): used only for the exact YAML it came from. */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cachedRestDocument, parseRestYaml, restDocumentOf, writeRestDocumentCache } from '../src/document-cache.js';
import { REST_DOCUMENT_PATH } from '../src/document.js';

const dir = mkdtempSync(join(tmpdir(), 'rest-doc-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the cached document is the parsed rest.yaml, and is used for that text only', () => {
  const cache = join(dir, 'rest-document.json');
  writeRestDocumentCache(REST_DOCUMENT_PATH, cache);
  const text = readFileSync(REST_DOCUMENT_PATH, 'utf8');
  expect(cachedRestDocument(text, cache)).toEqual(parseRestYaml(text));
  // A YAML changed after the build (one more character) is parsed, never answered from the cache.
  expect(cachedRestDocument(`${text}\n`, cache)).toBeUndefined();
  expect(cachedRestDocument(text, join(dir, 'absent.json'))).toBeUndefined();
});

test('a YAML with a key twice is refused, cached or not', () => {
  const path = join(dir, 'dup.yaml');
  writeFileSync(path, 'openapi: 3.1.0\nopenapi: 3.1.1\n');
  expect(() => writeRestDocumentCache(path, join(dir, 'dup.json'))).toThrow(/unique/i);
});

test('a start from sources memoises the parse by content: the same text is read back, another text is parsed', () => {
  const memo = join(dir, 'memo');
  const url = pathToFileURL(`${memo}/`);
  const text = 'openapi: 3.1.0\ninfo: { title: memo, version: "1" }\n';
  expect(restDocumentOf(text, url)).toEqual(parseRestYaml(text));
  const [file] = readdirSync(memo);
  expect(file).toMatch(/^rest-document-[0-9a-f]{64}\.json$/);
  // The next start with that text reads the memo (marked here to tell it from a parse) ...
  writeFileSync(join(memo, file!), JSON.stringify({ openapi: '3.1.0', marked: true }));
  expect(restDocumentOf(text, url)).toEqual({ openapi: '3.1.0', marked: true });
  // ... a changed text never meets it, and gets its own memo.
  expect(restDocumentOf(`${text}# edited\n`, url)).toEqual(parseRestYaml(text));
  expect(readdirSync(memo)).toHaveLength(2);
});

test('without a writable place for the memo the document is parsed all the same', () => {
  const readOnly = join(dir, 'read-only');
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o500);
  const text = 'openapi: 3.1.0\n';
  // (As root the directory stays writable; either way the answer is the parse.)
  expect(restDocumentOf(text, pathToFileURL(`${readOnly}/sub/`))).toEqual(parseRestYaml(text));
});
