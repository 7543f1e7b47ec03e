/**
 * The web player at /play (a browser becomes a screen: pairing, playback, proof of play, commands,
 * offline through a Service Worker) and the operator's fleet view at /screens: their files come
 * from @pylon/player-web (player-web/), whose scripts are bundled with esbuild at start; these routes
 * add the gateway's HTTP policy (CSP, caching, paths). The player then talks only to the player API
 * (/player/...), the screens page to the REST API with the key entered in the page.
 */
import { Router, type Request, type Response } from 'express';
import type { Logger } from '@pylon/kit';
import { buildPlayerBundle, readPlayerFiles, type PlayerBundle } from '@pylon/player-web';

/**
 * No inline script and no third-party script. Media may come from MEDIA_PUBLIC_BASE_URL (another
 * origin, e.g. a CDN or object storage), so images, video and their fetches may use any http(s)
 * origin. Web page sources are framed from any http(s) origin (sandboxed frames: zone.js).
 */
export const PLAYER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: http: https:",
  "media-src 'self' blob: http: https:",
  "connect-src 'self' http: https:",
  "worker-src 'self'",
  'frame-src http: https:',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export function createPlayerWeb(opts: { logger: Logger }): Router {
  const { playHtml, playerCss, screensHtml, screensJs } = readPlayerFiles();
  let bundle: Promise<PlayerBundle> | undefined;
  const scripts = () => {
    bundle ??= buildPlayerBundle().catch((err: unknown) => {
      bundle = undefined; // the next request tries again
      throw err;
    });
    return bundle;
  };
  // Built at once, so the first screen does not wait for esbuild.
  void scripts().catch((err: unknown) => opts.logger.error({ err }, 'the web player could not be built'));

  const send = (res: Response, type: string, body: string, cache: string) => {
    res.setHeader('Content-Security-Policy', PLAYER_CSP);
    res.setHeader('Cache-Control', cache);
    res.type(type).send(body);
  };
  const script = (pick: (b: PlayerBundle) => string) => async (_req: Request, res: Response) => {
    try {
      send(res, 'text/javascript; charset=utf-8', pick(await scripts()), 'no-cache');
    } catch {
      res.status(503).type('text/plain').send('the web player is not available: it could not be built on this server');
    }
  };

  const router = Router();
  // The Service Worker's scope is /play/: the page lives there (/play redirects, keeping ?key=).
  router.get(['/play', '/play/'], (req, res) => {
    const [path, query] = req.originalUrl.split(/\?(.*)/s, 2);
    if (path!.endsWith('/')) return send(res, 'text/html; charset=utf-8', playHtml, 'no-cache');
    res.redirect(302, `/play/${query ? `?${query}` : ''}`);
  });
  router.get('/play/assets/player.css', (_req, res) => send(res, 'text/css; charset=utf-8', playerCss, 'no-cache'));
  router.get(
    '/play/assets/player.js',
    script((b) => b.player),
  );
  router.get(
    '/play/sw.js',
    script((b) => b.sw),
  );
  router.get(['/screens', '/screens/'], (_req, res) => send(res, 'text/html; charset=utf-8', screensHtml, 'no-cache'));
  router.get('/screens/assets/screens.js', (_req, res) => send(res, 'text/javascript; charset=utf-8', screensJs, 'no-cache'));
  router.get('/screens/assets/player.css', (_req, res) => send(res, 'text/css; charset=utf-8', playerCss, 'no-cache'));
  return router;
}
