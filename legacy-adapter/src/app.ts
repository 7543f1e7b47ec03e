/**
 * The legacy REST interface (plain HTTP, api_key parameter, json/xml/rss/JSONP out, JSON or XML in).
 * Request pipeline, in order:
 *   ops endpoints (/healthz, /readyz, /metrics; no key) ->
 *   negotiation (format, callback: 400 when invalid; errors from here on use the asked format) ->
 *   api_key (401 when missing; validity is checked by the gateway) ->
 *   body (415 type, 413 size, 400 malformed / DTD / depth / prototype keys) ->
 *   resource (persisted operation as the caller -> legacy record -> rendered) | 404.
 */
import express, { type Express } from 'express';
import helmet from 'helmet';
import { auditTrail, mountOps, publicHttpApp, type AuditSink, type GatewayClient, type PublicHttpOptions, type ReadinessCheck } from '@pylon/kit';
import { requireApiKey } from './http/api-key.js';
import { bodyParsing } from './http/body.middleware.js';
import { errorHandler, notFound } from './http/errors.js';
import { negotiation } from './http/negotiation.js';
import { createOperationRunner } from './operations.js';
import { RESOURCES } from './resources/index.js';

export interface LegacyAppOptions extends PublicHttpOptions {
  client: GatewayClient;
  /** Request body cap in bytes, after decompression (default 1 MB). */
  maxBodyBytes?: number;
  /** Element / object nesting cap for request bodies (default 32). */
  maxBodyDepth?: number;
  /** Where each request's audit event goes (none: not recorded). */
  audit?: AuditSink | undefined;
  /** Readiness checks for /readyz (its own process: the gateway it sends to; in-process: none). */
  checks?: Record<string, ReadinessCheck>;
  /** Where relative media file addresses resolve (RSS enclosures): the REST base URL, which serves the files. */
  filesBaseUrl?: () => string | undefined;
}

export function createLegacyApp(opts: LegacyAppOptions): Express {
  const maxBodyBytes = opts.maxBodyBytes ?? 1_000_000;
  const runner = createOperationRunner({ client: opts.client, logger: opts.logger, required: RESOURCES.flatMap((r) => r.operations) });
  const ops = opts.ops;

  // Logs redact api_key from URLs (kit redactUrl).
  const app = publicHttpApp(opts);
  // Every request but the ops endpoints is an audit event, refusals included (resources name the rest).
  app.use(auditTrail({ sink: opts.audit, interface: 'legacy', controller: (req) => req.path.split('/')[1] || 'root' }));
  app.use(
    helmet({
      // Responses are data, never pages: nothing may load or frame them as a document.
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      // Plain HTTP interface (spec): HSTS only means something over TLS.
      strictTransportSecurity: false,
      // JSONP is read cross-origin through <script>; same-origin CORP would block exactly that.
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    }),
  );
  mountOps(app, ops, opts.checks ?? {}, opts.metrics);

  app.use(negotiation());
  app.use(requireApiKey());
  app.use(bodyParsing({ maxBytes: maxBodyBytes, ...(opts.maxBodyDepth ? { maxDepth: opts.maxBodyDepth } : {}) }));
  const router = express.Router();
  for (const resource of RESOURCES) resource.mount(router, runner, opts.filesBaseUrl ? { filesBaseUrl: opts.filesBaseUrl } : {});
  app.use(router);
  app.use(notFound());
  app.use(errorHandler({ maxBodyBytes, logger: opts.logger }));
  return app;
}
