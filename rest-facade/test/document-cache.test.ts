/** rest.yaml parsed at build time (src/document-cache.ts): used only for the exact YAML it came from. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachedRestDocument, parseRestYaml, writeRestDocumentCache } from '../src/document-cache.js';
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
