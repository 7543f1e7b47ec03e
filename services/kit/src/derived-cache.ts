/**
 * Work a start repeats on unchanged inputs (parsing rest.yaml, expanding a subgraph's SDL), done
 * once and kept as `<name>-<SHA-256 of a salt and the input>.json` (the salt names what else the
 * result depends on: the deriving library's exact build, the result's format), so an edited input
 * or an upgraded library never meets a stale result. A start looks for its input's file in the given folders, in order; callers name two:
 * - beside their compiled module: `npm run build` writes it into dist/ (what the image runs, on a
 *   read-only root file system);
 * - their package's `node_modules/.cache/pylon/` (the place tools keep such caches): a start from
 *   sources (`npm start` before a build, every test that starts the service) that had to derive
 *   writes it there for the next one; a read-only file system just goes without it.
 * Node built-ins only: the build script loads the compiled module.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface DerivedCache<T> {
  /** The result for this input: found in the folders (in order), else derived now and kept in the last of them. */
  get(input: string): T;
  /** Build step: derives the result for `input` and writes it into `dir`. */
  write(input: string, dir: URL): void;
}

/** Written aside and renamed: processes starting at once never read half a file. Throws on a read-only file system. */
function writeResult(file: URL, result: unknown): void {
  const dir = new URL('./', file);
  mkdirSync(dir, { recursive: true });
  const partial = new URL(`${file.pathname.split('/').pop()}.${process.pid}.tmp`, dir);
  writeFileSync(partial, JSON.stringify(result));
  renameSync(partial, file);
}

function readResult(file: URL): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // none there (or an unreadable one)
  }
}

/**
 * Which build of package `pkg` a module at `from` loads: pnpm's folder name for it (its version,
 * its patch's hash and its peers', e.g. `@apollo+federation-internals@2.14.4_patch_hash=…`), else
 * `<name>@<version>` from its package.json. For a derived result's salt.
 */
export function packageBuild(from: string | URL, pkg: string): string {
  const require = createRequire(from);
  for (let dir = dirname(require.resolve(pkg)); dir !== dirname(dir); dir = dirname(dir)) {
    let json: { name?: string; version?: string };
    try {
      json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
    } catch {
      continue; // no package.json at this level
    }
    if (json.name !== pkg) continue;
    const pnpm = /[/\\]\.pnpm[/\\]([^/\\]+)[/\\]/.exec(realpathSync(dir));
    return pnpm ? pnpm[1]! : `${pkg}@${json.version}`;
  }
  return pkg;
}

/**
 * `derive` must be pure in `input` and `salt`: both go into the file's name. Its result must survive
 * JSON. `valid` (optional) checks a kept file's shape: a file that fails it is derived anew.
 */
export function derivedCache<T>(opts: {
  name: string;
  dirs: readonly URL[];
  derive: (input: string) => T;
  salt?: string;
  valid?: (kept: unknown) => boolean;
}): DerivedCache<T> {
  const fileOf = (input: string, dir: URL) =>
    new URL(
      `${opts.name}-${createHash('sha256')
        .update(opts.salt ?? '')
        .update('\0')
        .update(input)
        .digest('hex')}.json`,
      dir,
    );
  return {
    get(input) {
      for (const dir of opts.dirs) {
        const found = readResult(fileOf(input, dir));
        if (found !== undefined && (!opts.valid || opts.valid(found))) return found as T;
      }
      const result = opts.derive(input);
      try {
        writeResult(fileOf(input, opts.dirs[opts.dirs.length - 1]!), result);
      } catch {
        // A read-only file system (the image's root): the next start derives again.
      }
      return result;
    },
    write(input, dir) {
      writeResult(fileOf(input, dir), opts.derive(input));
    },
  };
}
