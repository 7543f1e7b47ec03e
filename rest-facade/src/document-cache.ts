/**
 * rest.yaml parsed once, not at every start: parsing its 270 KB of YAML took a fifth of the
 * all-in-one's start (and of the `rest` role's). The parse is kept as `rest-document-<SHA-256 of
 * the YAML and the parser's build>.json` (@pylon/kit/derived-cache): beside the compiled facade, where `npm run build`
 * writes it (what the image runs), else in the package's `node_modules/.cache/pylon/`, where a start
 * from sources keeps the parse it had to make.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { derivedCache, packageBuild } from '@pylon/kit/derived-cache';

/** Where the build writes the parse: beside this module in dist/ (nothing is written beside the sources). */
const BUILT_DIR = new URL('./', import.meta.url);
/** Where a start from sources keeps the parse it made. */
const MEMO_DIR = new URL('../node_modules/.cache/pylon/', import.meta.url);

/**
 * The one way rest.yaml is parsed (duplicate keys are an error). The YAML parser (about 70 modules) is
 * loaded only when a parse is needed: a start that finds its parse kept never loads it.
 */
export function parseRestYaml(text: string): unknown {
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return parse(text, { uniqueKeys: true });
}

/** The YAML parser's exact build: an upgrade parses anew. */
const SALT = packageBuild(import.meta.url, 'yaml');
const parses = (dirs: readonly URL[]) => derivedCache({ name: 'rest-document', dirs, derive: parseRestYaml, salt: SALT });

/** The document for this YAML text: the parse found in `dirs` (in order), else parsed now and kept in the last of them. */
export function restDocumentOf(text: string, dirs: readonly URL[] = [BUILT_DIR, MEMO_DIR]): unknown {
  return parses(dirs).get(text);
}

/** Build step (scripts/write-start-caches.mjs): parses the YAML at `path` and writes its parse beside this module (or into `dir`). */
export function writeRestDocumentCache(path: string, dir: URL = BUILT_DIR): void {
  parses([dir]).write(readFileSync(path, 'utf8'), dir);
}
