/**
 * The OAuth 2.0 / OpenID Connect server as one express handler, mounted at the root of the
 * public app ({auth_url} = the issuer): /.well-known/openid-configuration, /connect/authorize,
 * /connect/token, /connect/jwks, /connect/userinfo, /connect/revocation, /connect/endsession and
 * the sign-in pages under /connect/interaction. The issuer is the public base URL, known only
 * once the server listens, so `start(issuer)` builds the provider; until then the paths answer 503.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type Provider from 'oidc-provider';
import { auditNote, auditTrail, type AuditSink, type DocumentStore, type Logger, type RateLimiter } from '@pylon/kit';
import type { IdentityRepository } from '../../../shared/identity.repository.js';
import type { BearerAuthenticator } from '../bearer.js';
import { interactionRoutes } from './interactions.js';
import { loadOrCreateOAuthKeys } from '../oauth-keys.js';
import { oidcAdapterFactory } from '../../../adapters/oidc.adapter.js';
import { renderErrorPage } from './pages.js';
import { audienceOf, createProvider } from './provider.js';
import { API_SCOPE, isOAuthPath, OAUTH_ROUTES, type OAuthSettings } from '../../../domain/oauth-settings.js';

export interface OAuthServerDeps {
  documents: DocumentStore;
  repo: IdentityRepository;
  settings: OAuthSettings;
  bearer: BearerAuthenticator;
  logger: Logger;
  loginLimiter?: RateLimiter | undefined;
  audit?: AuditSink | undefined;
}

export interface OAuthServer {
  /** Mount with app.use(handler) before any catch-all router; it passes other paths on. */
  handler: RequestHandler;
  /** Builds the provider for this issuer (the public base URL) and arms bearer verification. */
  start(issuer: string): Promise<void>;
  readonly issuer: string | undefined;
  /**
   * A readiness check: rejects until `start` has built the provider (its paths answer 503 until
   * then), so /readyz, and the banner after it, never promise a sign-in that is not there yet.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const STARTING = 'the sign-in service is starting';

const ROUTE_NAMES = new Map<string, string>([
  ['/.well-known/openid-configuration', 'discovery'],
  ['/.well-known/oauth-authorization-server', 'discovery'],
  ...Object.entries(OAUTH_ROUTES).map(([name, path]) => [path, name] as [string, string]),
]);

export function createOAuthServer(d: OAuthServerDeps): OAuthServer {
  let provider: Provider | undefined;
  let callback: ((req: Request, res: Response) => unknown) | undefined;
  let issuer: string | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  const adapter = oidcAdapterFactory(d.documents);
  // Read (or, on a first start, generated on libuv's threads) while the rest of the process is built;
  // `start` awaits them. A failure is `start`'s to report.
  const keysLoaded = loadOrCreateOAuthKeys(d.documents);
  keysLoaded.catch(() => undefined);

  const router = express.Router();
  router.use(
    auditTrail({
      sink: d.audit,
      interface: 'oauth',
      controller: () => 'oauth',
      skip: (req) => !isOAuthPath(req.path),
    }),
  );
  router.use((req, res, next) => {
    if (!isOAuthPath(req.path)) return next('router');
    if (!provider || !callback) {
      res.status(503).type('text/plain').send(STARTING);
      return;
    }
    const route = ROUTE_NAMES.get(req.path) ?? (req.path.startsWith(OAUTH_ROUTES.authorization) ? 'authorization' : undefined);
    if (route) auditNote(res).actionName = route;
    next();
  });
  router.use(interactionRoutes({ provider: () => provider!, repo: d.repo, loginLimiter: d.loginLimiter }));
  router.use((req, res) => {
    // The OAuth endpoints proper: oidc-provider (Koa) answers everything under them.
    void callback!(req, res);
  });
  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = err as { name?: string; statusCode?: number; error?: string; error_description?: string };
    if (res.headersSent) return;
    if (e?.name === 'SessionNotFound' || e?.statusCode === 400) {
      res
        .status(400)
        .type('html')
        .send(renderErrorPage(e.error ?? 'invalid_request', 'This sign-in has expired or was opened in another browser; start again from the application.'));
      return;
    }
    d.logger.error({ err }, 'OAuth interaction failed');
    res.status(500).type('html').send(renderErrorPage('server_error', 'Something went wrong; try again.'));
  });

  return {
    handler: router,
    get issuer() {
      return issuer;
    },
    ready: () => (provider && callback ? Promise.resolve() : Promise.reject(new Error(STARTING))),
    async start(iss) {
      const base = iss.replace(/\/+$/, '');
      const keys = await keysLoaded;
      provider = await createProvider({ issuer: base, settings: d.settings, keys, adapter, repo: d.repo });
      provider.on('server_error', (_ctx: unknown, err: unknown) => d.logger.error({ err }, 'OAuth server error'));
      // `webapi` is a resource server scope, which discovery does not list by itself; clients look for it there.
      provider.use(async (ctx, next) => {
        await next();
        const body = ctx.body as { scopes_supported?: string[] } | undefined;
        if (ctx.oidc?.route === 'discovery' && body?.scopes_supported) body.scopes_supported = [...new Set([...body.scopes_supported, API_SCOPE])];
      });
      callback = provider.callback() as (req: Request, res: Response) => unknown;
      issuer = base;
      d.bearer.configure({ issuer: base, audience: audienceOf(base, d.settings), jwks: keys.publicJwks, clientId: d.settings.clientId });
      sweeper = setInterval(() => void adapter.sweep().catch((err: unknown) => d.logger.warn({ err }, 'OAuth sweep failed')), 10 * 60_000);
      sweeper.unref();
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      // A first start's key insert finishes before the caller closes the store under it.
      await keysLoaded.catch(() => undefined);
    },
  };
}
