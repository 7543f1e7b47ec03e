/**
 * Work a start repeats on unchanged inputs (parsing rest.yaml, expanding a subgraph's SDL), done
 * once and kept as `<name>-<SHA-256 of the input>.json`, so an edited input never meets a stale
 * result. A start looks for its input's file in the given folders, in order; callers name two:
 * - beside their compiled module: `npm run build` writes it into dist/ (what the image runs, on a
 *   read-only root file system);
 * - their package's `node_modules/.cache/pylon/` (the place tools keep such caches): a start from
 *   sources (`npm start` before a build, every test that starts the service) that had to derive
 *   writes it there for the next one; a read-only file system just goes without it.
 * Node built-ins only: the build script loads the compiled module.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

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
 * `derive` must be pure in `input` and `salt` (say, the deriving library's version): both go into
 * the file's name. Its result must survive JSON.
 */
export function derivedCache<T>(opts: { name: string; dirs: readonly URL[]; derive: (input: string) => T; salt?: string }): DerivedCache<T> {
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
        if (found !== undefined) return found as T;
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
