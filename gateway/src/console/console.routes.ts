/**
 * The operator console at /console: the single-page app @pylon/console builds with Vite into
 * console/dist (`npm run build`, and `npm start` when console/ changed: scripts/console-build.cjs).
 * Served from this origin only (the CSP allows no other script, style or connect source); hashed
 * assets are cached for a year, the page itself is revalidated. Every other path under /console is
 * the app's own route (deep links), answered with the page.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { Router, type Request, type Response } from 'express';
import type { Logger } from '@pylon/kit';

/** Images may come from MEDIA_PUBLIC_BASE_URL (another origin: thumbnails); everything else from here. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: http: https:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

interface Built {
  html: string;
  assets: Map<string, Buffer>;
}

/** console/dist, found through the package (the image copies it beside the package manifest). */
export function consoleDistDir(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@pylon/console/package.json')), 'dist');
}

function load(dir: string): Built | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const assetsDir = join(dir, 'assets');
  const assets = new Map<string, Buffer>();
  for (const f of existsSync(assetsDir) ? readdirSync(assetsDir) : []) assets.set(f, readFileSync(join(assetsDir, f)));
  return { html: readFileSync(join(dir, 'index.html'), 'utf8'), assets };
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Pylon console</title>
<h1>The console is not built on this server</h1>
<p>Run <code>npm run build</code> (or <code>npm start</code>, which builds it when console/ changed), then reload this page.</p></html>`;

export function createConsole(opts: { logger: Logger; dir?: string }): Router {
  const dir = opts.dir ?? consoleDistDir();
  // Read once (a few hundred kilobytes); a build made after the start is picked up by the next request.
  let built = load(dir);
  if (!built) opts.logger.warn({ dir }, 'the operator console is not built: /console answers 503 until it is (npm run build)');
  const current = () => (built ??= load(dir));

  const router = Router();
  router.get('/console/assets/:file', (req: Request, res: Response) => {
    const body = current()?.assets.get(req.params.file as string);
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    if (!body) return res.status(404).type('text/plain').send('no such console asset (the console was rebuilt: reload the page)');
    // Vite names each asset by its content hash: a new build has new names.
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type(TYPES[extname(req.params.file as string)] ?? 'application/octet-stream').send(body);
  });
  router.get(['/console', '/console/{*rest}'], (req: Request, res: Response) => {
    if (req.path === '/console') return res.redirect(302, '/console/');
    const b = current();
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.setHeader('Cache-Control', 'no-cache');
    if (!b) return res.status(503).type('text/html; charset=utf-8').send(NOT_BUILT);
    res.type('text/html; charset=utf-8').send(b.html);
  });
  return router;
}
