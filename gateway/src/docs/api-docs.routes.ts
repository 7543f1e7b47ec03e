/**
 * The API documentation in the browser, served by this process from npm packages (no CDN):
 * Swagger UI over /openapi.json at /docs, and GraphiQL at /graphiql (and at /graphql when a
 * browser asks for HTML). Both pages share one API key bar; the key is sent as X-Service-ApiKey.
 * Every page and asset carries a CSP without inline scripts or third-party origins.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router, type Request, type Response } from 'express';
import type { Logger } from '@pylon/kit';
import { loadGraphiqlBundle, type GraphiqlBundle } from './graphiql-bundle.js';

const BROWSER = fileURLToPath(new URL('./browser/', import.meta.url));
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Swagger UI and GraphiQL style elements inline; everything else comes from this origin. */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const page = (file: string) => {
  const keyBar = readFileSync(join(BROWSER, 'key-bar.html'), 'utf8');
  return readFileSync(join(BROWSER, file), 'utf8').replace('<!--key-bar-->', keyBar);
};

/** Files served under /docs/assets/: ours, and the few Swagger UI needs (nothing else from node_modules). */
const ASSETS: Record<string, { path: string; type: string }> = {
  'api-key.js': { path: join(BROWSER, 'api-key.js'), type: 'text/javascript' },
  'swagger.init.js': { path: join(BROWSER, 'swagger.init.js'), type: 'text/javascript' },
  'docs.css': { path: join(BROWSER, 'docs.css'), type: 'text/css' },
  'swagger-ui-bundle.js': { path: join(SWAGGER_UI, 'swagger-ui-bundle.js'), type: 'text/javascript' },
  'swagger-ui.css': { path: join(SWAGGER_UI, 'swagger-ui.css'), type: 'text/css' },
  'favicon-32x32.png': { path: join(SWAGGER_UI, 'favicon-32x32.png'), type: 'image/png' },
};

/** A browser's navigation to /graphql (GET preferring HTML, no query): the API answers everything else. */
export function wantsGraphiql(req: Request): boolean {
  return (
    req.method === 'GET' && req.query.query === undefined && req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html'
  );
}

export function createApiDocs(opts: { logger: Logger; cacheDir?: string }): Router {
  const docsHtml = page('docs.html');
  const graphiqlHtml = page('graphiql.html');
  let bundle: Promise<GraphiqlBundle> | undefined;
  const graphiql = () => {
    bundle ??= loadGraphiqlBundle(opts.cacheDir).catch((err: unknown) => {
      bundle = undefined; // the next request tries again
      throw err;
    });
    return bundle;
  };

  const html = (body: string) => (_req: Request, res: Response) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.setHeader('Cache-Control', 'no-cache');
    res.type('text/html; charset=utf-8').send(body);
  };
  const asset = (type: string, body: string | Buffer, res: Response) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type(type).send(body);
  };

  const router = Router();
  router.get(['/docs', '/docs/'], html(docsHtml));
  router.get('/docs/assets/:file', (req, res, next) => {
    const a = ASSETS[req.params.file];
    if (!a) return next();
    asset(a.type, readFileSync(a.path), res);
  });
  router.get(['/graphiql', '/graphiql/'], html(graphiqlHtml));
  router.get('/graphql', (req, res, next) => (wantsGraphiql(req) ? html(graphiqlHtml)(req, res) : next()));
  router.get('/graphiql/assets/:file', async (req, res, next) => {
    const file = req.params.file;
    if (file !== 'graphiql.js' && file !== 'graphiql.css') return next();
    try {
      const b = await graphiql();
      asset(file.endsWith('.js') ? 'text/javascript' : 'text/css', file.endsWith('.js') ? b.js : b.css, res);
    } catch (err) {
      opts.logger.error({ err }, 'GraphiQL could not be built');
      res.status(503).type('text/plain').send('GraphiQL is not available: it could not be built on this server');
    }
  });
  return router;
}
