/**
 * rest.yaml parsed once, not at every start: parsing its 270 KB of YAML took a fifth of the
 * all-in-one's start (and of the `rest` role's). The parse is kept as `rest-document-<SHA-256 of
 * the YAML>.json`, so an edited YAML never meets a stale parse; a start looks for its YAML's file
 * in two places, in order:
 * - beside this module: `npm run build` writes it into the compiled facade's dist/ (what the image
 *   runs, on a read-only root file system);
 * - the package's `node_modules/.cache/pylon/` (the place tools keep such caches): a start from
 *   sources (`npm start` before a build, every test that starts the service) that had to parse
 *   writes it there for the next one; a read-only file system just goes without it.
 * No @pylon import, so the build script can load the compiled module.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

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

/** The parse of exactly this YAML text, as a file in `dir`. */
const parseFile = (text: string, dir: URL) => new URL(`rest-document-${createHash('sha256').update(text).digest('hex')}.json`, dir);

function readParse(file: URL): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // none there (or an unreadable one)
  }
}

/** Written aside and renamed: processes starting at once never read half a file. Throws on a read-only file system. */
function writeParse(file: URL, definition: unknown): void {
  const dir = new URL('./', file);
  mkdirSync(dir, { recursive: true });
  const partial = new URL(`${file.pathname.split('/').pop()}.${process.pid}.tmp`, dir);
  writeFileSync(partial, JSON.stringify(definition));
  renameSync(partial, file);
}

/** The document for this YAML text: the parse found in `dirs` (in order), else parsed now and kept in the last of them. */
export function restDocumentOf(text: string, dirs: readonly URL[] = [BUILT_DIR, MEMO_DIR]): unknown {
  for (const dir of dirs) {
    const found = readParse(parseFile(text, dir));
    if (found !== undefined) return found;
  }
  const definition = parseRestYaml(text);
  try {
    writeParse(parseFile(text, dirs[dirs.length - 1]!), definition);
  } catch {
    // A read-only file system (the image's root): the next start parses again.
  }
  return definition;
}

/** Build step (scripts/build.cjs): parses the YAML at `path` and writes its parse beside this module (or into `dir`). */
export function writeRestDocumentCache(path: string, dir: URL = BUILT_DIR): void {
  const text = readFileSync(path, 'utf8');
  writeParse(parseFile(text, dir), parseRestYaml(text));
}
