/**
 * The web player's scripts (browser/player.entry.js and the Service Worker browser/sw.entry.js),
 * bundled with esbuild from this package's files: no CDN, no framework. Loaded once per process
 * when the gateway's router is created and served from memory. `npm run build` copies the sources
 * into player-web/dist/ and bundles them there once (`writePlayerBundle`, from
 * scripts/write-start-caches.mjs), so a start from dist/ (the image's) reads the result instead of
 * running esbuild, a second process busy for a few hundred milliseconds while the server starts.
 * The kept bundle is used only while its key matches: every browser file and esbuild's version.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface PlayerBundle {
  player: string;
  sw: string;
}

const entry = (name: string) => fileURLToPath(new URL(`./browser/${name}`, import.meta.url));

const BROWSER_DIR = fileURLToPath(new URL('./browser/', import.meta.url));
/** Beside the compiled module: only `npm run build` writes it. */
const KEPT = fileURLToPath(new URL('./player-bundle.json', import.meta.url));
const FORMAT = 1;

async function bundleKey(): Promise<string> {
  const h = createHash('sha256').update(`format ${FORMAT}; esbuild ${(createRequire(import.meta.url)('esbuild/package.json') as { version: string }).version}`);
  for (const name of (await readdir(BROWSER_DIR)).sort()) h.update(`\0${name}\0`).update(await readFile(BROWSER_DIR + name));
  return h.digest('hex');
}

const parseKept = (text: string): (Partial<PlayerBundle> & { key?: unknown }) | undefined => {
  try {
    return JSON.parse(text) as Partial<PlayerBundle> & { key?: unknown };
  } catch {
    return undefined; // a damaged file: built again
  }
};

/** The kept bundle when `keptFile` holds one for these sources and this esbuild, else a fresh build. */
export async function buildPlayerBundle(keptFile = KEPT): Promise<PlayerBundle> {
  const [key, kept] = await Promise.all([bundleKey(), readFile(keptFile, 'utf8').then(parseKept, () => undefined)]);
  return kept?.key === key && typeof kept.player === 'string' && typeof kept.sw === 'string' ? { player: kept.player, sw: kept.sw } : bundle();
}

/** Build step: bundles once and keeps the result beside this module (in dist/, which the image runs). */
export async function writePlayerBundle(keptFile = KEPT): Promise<void> {
  const [key, b] = await Promise.all([bundleKey(), bundle()]);
  await writeFile(keptFile, JSON.stringify({ key, ...b }));
}

async function bundle(): Promise<PlayerBundle> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: { player: entry('player.entry.js'), sw: entry('sw.entry.js') },
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    platform: 'browser',
    // Smart-TV browsers lag behind: ES2019 syntax (optional chaining and ?? are lowered).
    target: 'es2019',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const text = (name: string) => {
    const f = out.outputFiles.find((o) => o.path.endsWith(`/${name}.js`));
    if (!f) throw new Error(`the player build produced no ${name}.js`);
    return f.text;
  };
  return { player: text('player'), sw: text('sw') };
}
