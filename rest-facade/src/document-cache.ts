/**
 * rest.yaml parsed once, at build time: parsing its 270 KB of YAML took a fifth of the all-in-one's
 * start (and of the `rest` role's). `npm run build` writes the parsed document beside the compiled
 * facade (`dist/rest-document.json`) with the SHA-256 of the YAML it came from; a start uses it only
 * while that hash matches the YAML it reads, else parses the YAML as before (sources, or a YAML
 * changed after the build). No @pylon import, so the build script can load the compiled module.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

/** Where the build writes the parsed document: beside this module in dist/ (absent beside the sources). */
const CACHE = new URL('./rest-document.json', import.meta.url);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The one way rest.yaml is parsed (duplicate keys are an error). */
export function parseRestYaml(text: string): unknown {
  return parse(text, { uniqueKeys: true });
}

/** The document parsed at build time from exactly this YAML text; undefined when there is none or it came from another text. */
export function cachedRestDocument(text: string, cache: URL | string = CACHE): unknown {
  if (!existsSync(cache)) return undefined;
  const cached = JSON.parse(readFileSync(cache, 'utf8')) as { sha256?: string; definition?: unknown };
  return cached.sha256 === sha256(text) ? cached.definition : undefined;
}

/** Build step (scripts/build.cjs): parses the YAML at `path` and writes the cache beside this module. */
export function writeRestDocumentCache(path: string, cache: URL | string = CACHE): void {
  const text = readFileSync(path, 'utf8');
  writeFileSync(cache, JSON.stringify({ sha256: sha256(text), definition: parseRestYaml(text) }));
}
