/**
 * rest.yaml parsed once, at build time: parsing its 270 KB of YAML took a fifth of the all-in-one's
 * start (and of the `rest` role's). `npm run build` writes the parsed document beside the compiled
 * facade (`dist/rest-document.json`) with the SHA-256 of the YAML it came from; a start uses it only
 * while that hash matches the YAML it reads, else parses the YAML as before (sources, or a YAML
 * changed after the build). No @pylon import, so the build script can load the compiled module.
 *
 * Started from sources (`npm start` before a build, every test that starts the service), the parse
 * is memoised by content in the package's `node_modules/.cache/pylon/` (the place tools keep such
 * caches): the next start reading the same YAML skips it. The memo is named by the YAML's SHA-256,
 * so an edited YAML never meets a stale one; a read-only file system just goes without it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

/** Where the build writes the parsed document: beside this module in dist/ (absent beside the sources). */
const CACHE = new URL('./rest-document.json', import.meta.url);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The one way rest.yaml is parsed (duplicate keys are an error). */
export function parseRestYaml(text: string): unknown {
  return parse(text, { uniqueKeys: true });
}

/** Where a start from sources memoises the parse (one file per YAML text). */
const MEMO_DIR = new URL('../node_modules/.cache/pylon/', import.meta.url);

/** The document parsed at build time from exactly this YAML text; undefined when there is none or it came from another text. */
export function cachedRestDocument(text: string, cache: URL | string = CACHE): unknown {
  if (!existsSync(cache)) return undefined;
  const cached = JSON.parse(readFileSync(cache, 'utf8')) as { sha256?: string; definition?: unknown };
  return cached.sha256 === sha256(text) ? cached.definition : undefined;
}

/** The document for this YAML text: the build's, else the memo of an earlier parse of the same text, else parsed now (and memoised). */
export function restDocumentOf(text: string, memoDir: URL = MEMO_DIR): unknown {
  const built = cachedRestDocument(text);
  if (built !== undefined) return built;
  const memo = new URL(`rest-document-${sha256(text)}.json`, memoDir);
  try {
    return JSON.parse(readFileSync(memo, 'utf8'));
  } catch {
    // No memo yet (or an unreadable one): parse, and keep the result for the next start.
  }
  const definition = parseRestYaml(text);
  try {
    mkdirSync(memoDir, { recursive: true });
    // Written aside and renamed: processes starting at once never read half a file.
    const partial = new URL(`${memo.pathname.split('/').pop()}.${process.pid}.tmp`, memoDir);
    writeFileSync(partial, JSON.stringify(definition));
    renameSync(partial, memo);
  } catch {
    // A read-only file system (the image's root): the next start parses again.
  }
  return definition;
}

/** Build step (scripts/build.cjs): parses the YAML at `path` and writes the cache beside this module. */
export function writeRestDocumentCache(path: string, cache: URL | string = CACHE): void {
  const text = readFileSync(path, 'utf8');
  writeFileSync(cache, JSON.stringify({ sha256: sha256(text), definition: parseRestYaml(text) }));
}
