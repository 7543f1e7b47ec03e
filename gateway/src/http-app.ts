/** The public HTTP surface of the gateway process: /graphql (+ ?sdl), ops endpoints, and the REST facade at the root. */
import { expressMiddleware } from '@as-integrations/express5';
import cors from 'cors';
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import helmet from 'helmet';
import {
  auditTrail,
  invalidJsonMessage,
  mountOps,
  publicHttpApp,
  type AuditNote,
  type AuditSink,
  type PublicHttpOptions,
  type ReadinessCheck,
} from '@pylon/kit';
import type { GatewayContext } from './data-sources.js';
import { graphqlAuth, type EdgeAuthenticator } from './edge-auth.js';
import type { Gateway } from './gateway.js';

export interface HttpAppOptions extends PublicHttpOptions {
  gateway: Gateway;
  auth: EdgeAuthenticator;
  checks: Record<string, ReadinessCheck>;
  rest?: Router;
  maxBodyBytes?: number;
  /** Where each /graphql request's audit event goes (none: not recorded). */
  audit?: AuditSink | undefined;
  /** The OAuth 2.0 / OIDC server (/connect/*, /.well-known/openid-configuration), when this process serves it. */
  oauth?: RequestHandler | undefined;
  /** The browser documentation (/docs, /graphiql, /graphql for browsers), when enabled. */
  docs?: Router | undefined;
  /**
   * Device-facing hot paths (the player API: thousands of requests a second): served right after the
   * request id, logging and security headers, before the other routers, none of which serves their paths.
   */
  early?: Router | undefined;
  /** The web player (/play) and the fleet view (/screens). */
  player?: Router | undefined;
  /** The MCP server (/mcp and its OAuth protected-resource metadata), when this process serves it. */
  mcp?: Router | undefined;
  /** The operator console (/console). */
  console?: Router | undefined;
  /**
   * Whether the SDL at /graphql/?sdl is public documentation. Off (production, where introspection
   * is off): it needs a key like any query, or it would make disabling introspection moot.
   */
  publicSdl?: boolean;
}

export function createHttpApp(o: HttpAppOptions): Express {
  const app = publicHttpApp(o);
  app.use(helmet({ contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'cross-origin' } }));
  if (o.early) app.use(o.early);
  mountOps(app, o.ops, o.checks, o.metrics);
  if (o.oauth) app.use(o.oauth);
  // Before /graphql: a browser's GET of /graphql gets GraphiQL, API calls pass through.
  if (o.docs) app.use(o.docs);
  if (o.player) app.use(o.player);
  if (o.console) app.use(o.console);

  // The SDL is documentation, never with federation internals: public only where introspection is.
  const sdlAuth = graphqlAuth(o.auth);
  app.get(
    '/graphql',
    (req, res, next) => (!('sdl' in req.query) ? next('route') : o.publicSdl === false ? sdlAuth(req, res, next) : next()),
    (_req, res) => {
      res.type('text/plain; charset=utf-8').send(o.gateway.sdl());
    },
  );
  app.use(
    '/graphql',
    auditTrail({ sink: o.audit, interface: 'graphql', controller: () => 'graphql' }),
    cors({ origin: true, credentials: false, maxAge: 600 }),
    express.json({ limit: o.maxBodyBytes ?? 1_000_000 }),
    graphqlAuth(o.auth),
    expressMiddleware(o.gateway.server, {
      context: async ({ res }): Promise<GatewayContext> => ({
        principal: res.locals.principal,
        requestId: String(res.getHeader('x-request-id')),
        ...(res.locals.audit ? { audit: res.locals.audit as AuditNote } : {}),
        ...(typeof res.locals.rateKey === 'string' ? { rateKey: res.locals.rateKey } : {}),
      }),
    }),
  );
  if (o.mcp) app.use(o.mcp);
  if (o.rest) app.use(o.rest);
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = typeof err === 'object' && err && 'status' in err && typeof err.status === 'number' ? err.status : 500;
    if (status >= 500) o.logger.error({ err }, 'unhandled error');
    // Body-parser refusals: 413 size, 415 encoding/charset, other 4xx (malformed JSON, bytes that do not decompress).
    const [message, code] =
      status === 413
        ? ['request body too large', 'PAYLOAD_TOO_LARGE']
        : status === 415
          ? ['unsupported body encoding or charset', 'UNSUPPORTED_MEDIA_TYPE']
          : status >= 400 && status < 500
            ? [
                (err as { type?: unknown }).type === 'entity.parse.failed'
                  ? invalidJsonMessage((err as { body?: unknown }).body, 'the request body')
                  : 'malformed request body',
                'BAD_REQUEST',
              ]
            : ['internal error', 'INTERNAL_SERVER_ERROR'];
    res.status(status >= 400 && status < 600 ? status : 500).json({ errors: [{ message, extensions: { code } }] });
  });
  return app;
}
