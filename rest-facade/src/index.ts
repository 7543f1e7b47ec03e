/**
 * The current REST interface: one OpenAPI 3.1 document (schema/openapi/rest.yaml) drives routing
 * and validation; every operation is a persisted GraphQL operation sent to the gateway with the
 * caller's credentials. Mounted at the root of the gateway's express app.
 */
import cors from 'cors';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Request as OpenApiRequest } from 'openapi-backend';
import { auditTrail, invalidJsonMessage, loadOperations, type AuditSink, type GatewayClient, type Logger } from '@pylon/kit';
import { createBackend } from './backend.js';
import { credentialsOf } from './credentials.js';
import { checkFacade, loadRestDocument, operationsOf } from './document.js';
import { sendError } from './errors.js';
import type { Exchange } from './handler.js';
import { REST_OPERATIONS } from './operations/index.js';

export { UNAUTHENTICATED_MESSAGE } from './backend.js';
export type { RestErrorBody, RestErrorCode, ErrorDetail } from './errors.js';

export interface RestFacadeOptions {
  client: GatewayClient;
  logger: Logger;
  /** JSON body limit; larger bodies get 413. Default 1 MB. */
  maxBodyBytes?: number;
  /** Path prefixes other parts of the process own; requests under them pass through untouched. */
  passThrough?: readonly string[];
  /** Where each request's audit event goes (none: not recorded). */
  audit?: AuditSink | undefined;
}

export const DEFAULT_PASS_THROUGH = ['/graphql', '/healthz', '/readyz', '/metrics'] as const;

/** Browsers on any origin may call; keys and tokens are sent explicitly, never as cookies, so no credentials mode. */
const corsOptions: cors.CorsOptions = {
  origin: '*',
  credentials: false,
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: ['X-Service-ApiKey', 'Authorization', 'Content-Type', 'X-Request-Id'],
  exposedHeaders: ['X-Request-Id', 'Allow', 'WWW-Authenticate', 'Retry-After', 'Link', 'X-Total-Count'],
  maxAge: 600,
};

export async function createRestFacade(opts: RestFacadeOptions): Promise<Router> {
  const doc = loadRestDocument();
  const persisted = loadOperations('rest');
  // Operations served elsewhere (x-pylon-handler, e.g. the player API) need no persisted document or mapper.
  const documented = operationsOf(doc.definition);
  const problems = checkFacade(doc.definition, persisted, REST_OPERATIONS);
  if (problems.length) throw new Error(`the REST facade cannot start:\n  ${problems.join('\n  ')}`);
  const api = await createBackend({
    client: opts.client,
    logger: opts.logger,
    definition: doc.definition,
    persisted,
    operations: REST_OPERATIONS,
    external: documented.filter((o) => o.handler),
  });

  const passThrough = opts.passThrough ?? DEFAULT_PASS_THROUGH;
  const router = express.Router();
  router.use((req, _res, next) => (passThrough.some((p) => req.path === p || req.path.startsWith(`${p}/`)) ? next('router') : next()));
  router.use(
    auditTrail({
      sink: opts.audit,
      interface: 'rest',
      // Handlers name the OpenAPI tag; unmatched paths are named by their first segment.
      controller: (req) => req.path.split('/')[1] || 'root',
      skip: (req) => req.path === '/openapi.json' || req.path === '/openapi.yaml',
    }),
  );
  router.use(cors(corsOptions));

  router.get('/openapi.json', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/json; charset=utf-8').send(doc.json);
  });
  router.get('/openapi.yaml', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/yaml; charset=utf-8').send(doc.yaml);
  });

  router.use((_req, res, next) => {
    // Answers depend on the caller's credentials: never cached by shared caches.
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // JSON Patch bodies (PATCH) arrive as application/json-patch+json.
  router.use(express.json({ limit: opts.maxBodyBytes ?? 1_000_000, type: ['application/json', 'application/json-patch+json'] }));
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      sendError(res, 'VALIDATION_FAILED', 'the path is not valid percent-encoding');
      return;
    }
    const search = new URLSearchParams(req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '');
    const request = toOpenApiRequest(req, search);
    const exchange: Exchange = { req, res, credentials: credentialsOf(req, search), request };
    try {
      await api.handleRequest(request, exchange);
    } catch (e) {
      next(e);
    }
  });
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const e = err as { status?: unknown; type?: unknown; body?: unknown };
    if (e?.type === 'entity.too.large') return sendError(res, 'PAYLOAD_TOO_LARGE', `the body is larger than ${opts.maxBodyBytes ?? 1_000_000} bytes`);
    if (e?.type === 'entity.parse.failed') {
      const message = invalidJsonMessage(e.body);
      return sendError(res, 'VALIDATION_FAILED', message, { details: [{ in: 'body', message }] });
    }
    if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported')
      return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'unsupported body encoding or charset');
    // Any other refusal of the body parser (e.g. a Content-Encoding whose bytes do not decompress) is the caller's.
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500)
      return sendError(res, 'VALIDATION_FAILED', 'the body could not be read (check Content-Encoding)', {
        details: [{ in: 'body', message: 'the body could not be read' }],
      });
    opts.logger.error({ err, requestId: res.getHeader('x-request-id') }, 'REST request failed');
    sendError(res, 'INTERNAL', 'internal error');
  });
  return router;
}

/**
 * The request as openapi-backend sees it. The query comes from the raw URL (repeated names become
 * arrays, nothing else is interpreted) in a prototype-less object, without `api_key`, which is a
 * credential rather than a parameter. HEAD is routed as GET (express drops the body).
 */
function toOpenApiRequest(req: Request, search: URLSearchParams): OpenApiRequest {
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of search) {
    if (k === 'api_key') continue;
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return {
    method: req.method === 'HEAD' ? 'GET' : req.method,
    path: req.path,
    headers: req.headers as Record<string, string | string[]>,
    query,
    body: req.body,
  };
}
