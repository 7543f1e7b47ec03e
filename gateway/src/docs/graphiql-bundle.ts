/**
 * GraphiQL for the browser, built from the installed npm packages (graphiql 4, React, graphql)
 * with esbuild: no CDN, so it works on networks without internet. The first request builds it
 * (a few seconds) into a cache directory keyed by the entry's source and the package versions;
 * later starts reuse the files, and each process keeps them in memory once read.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GraphiqlBundle {
  js: string;
  css: string;
}

const require = createRequire(import.meta.url);
const ENTRY = fileURLToPath(new URL('./browser/graphiql.entry.js', import.meta.url));
const version = (pkg: string) => (require(`${pkg}/package.json`) as { version: string }).version;

async function cacheKey(): Promise<string> {
  const h = createHash('sha256').update(await readFile(ENTRY));
  for (const pkg of ['graphiql', 'react', 'react-dom', 'esbuild']) h.update(`${pkg}@${version(pkg)}`);
  return h.digest('hex').slice(0, 16);
}

async function build(): Promise<GraphiqlBundle> {
  // Loaded only when GraphiQL is first asked for: processes that never serve it never load esbuild.
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    // With platform 'browser' and minify, esbuild defines NODE_ENV as "production" itself (React's production build).
  });
  const js = out.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = out.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js || !css) throw new Error('the GraphiQL build produced no script or stylesheet');
  return { js: js.text, css: css.text };
}

/** Reads the cached bundle or builds and caches it; a cache that cannot be written only costs a rebuild next start. */
export async function loadGraphiqlBundle(cacheDir = join(tmpdir(), 'pylon-docs-cache')): Promise<GraphiqlBundle> {
  const dir = join(cacheDir, `graphiql-${await cacheKey()}`);
  try {
    const [js, css] = await Promise.all([readFile(join(dir, 'graphiql.js'), 'utf8'), readFile(join(dir, 'graphiql.css'), 'utf8')]);
    return { js, css };
  } catch {
    /* not built yet */
  }
  const bundle = await build();
  try {
    await mkdir(dir, { recursive: true });
    // Written under temporary names and renamed, so a concurrent start never reads half a file.
    const tag = `${process.pid}-${Date.now()}`;
    await writeFile(join(dir, `graphiql.js.${tag}`), bundle.js);
    await writeFile(join(dir, `graphiql.css.${tag}`), bundle.css);
    await rename(join(dir, `graphiql.js.${tag}`), join(dir, 'graphiql.js'));
    await rename(join(dir, `graphiql.css.${tag}`), join(dir, 'graphiql.css'));
  } catch {
    /* read-only or full disk: serve from memory */
  }
  return bundle;
}
