/**
 * The web player's scripts (browser/player.entry.js and the Service Worker browser/sw.entry.js),
 * bundled with esbuild from this package's files: no CDN, no framework. Built once per process
 * when the gateway's router is created (a few hundred milliseconds) and served from memory; `npm run
 * build` copies the sources into player-web/dist/, where the same build runs.
 */
import { fileURLToPath } from 'node:url';

export interface PlayerBundle {
  player: string;
  sw: string;
}

const entry = (name: string) => fileURLToPath(new URL(`./browser/${name}`, import.meta.url));

export async function buildPlayerBundle(): Promise<PlayerBundle> {
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
