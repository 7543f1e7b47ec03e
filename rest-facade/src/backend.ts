/**
 * openapi-backend wiring: routing, credential presence, parameter validation and coercion all come
 * from the OpenAPI document; each operation then runs the generic gateway handler.
 * Order per request (openapi-backend's): route (404/405) -> case folding -> security (401) -> validation (400) -> handler.
 */
import { OpenAPIBackend, type Context, type Document } from 'openapi-backend';
import type { GatewayClient, Logger } from '@pylon/kit';
import { caseFoldsOf, foldCase } from './case-fold.js';
import { allowedMethods } from './document.js';
import { sendError } from './errors.js';
import { gatewayHandler, type Exchange } from './handler.js';
import type { RestOperation } from './operations/index.js';
import { detailsOf } from './validation.js';

/** Formats the document uses beyond openapi-backend's numeric ones (spec: timestamps are YYYY-MM-DDTHH:MM:SSZ). */
const FORMATS = {
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
};

export const UNAUTHENTICATED_MESSAGE = 'authentication required: send the X-Service-ApiKey header, the api_key parameter or a bearer token';

export interface BackendDeps {
  client: GatewayClient;
  logger: Logger;
  definition: Document;
  persisted: ReadonlyMap<string, string>;
  operations: Readonly<Record<string, RestOperation>>;
  /** Documented operations another component serves (x-pylon-handler); reaching the facade means that component is not in front of it. */
  external?: readonly { operationId: string; handler?: string }[];
}

export async function createBackend(deps: BackendDeps): Promise<OpenAPIBackend> {
  const api = new OpenAPIBackend({
    // A copy: the backend dereferences its definition in place, /openapi.json serves the original.
    definition: structuredClone(deps.definition),
    strict: true,
    validate: true,
    coerceTypes: true,
    // allErrors: report every bad parameter at once; useDefaults: the document's defaults are the only ones.
    ajvOpts: { allErrors: true, useDefaults: true, formats: FORMATS },
    // Start in well under a second: quick skips re-validating the document against the OpenAPI
    // meta-schema (test/document.test.ts does that once) and compiles each operation's request
    // validator when it is first called (a few ms, once) instead of every request and response
    // validator up front (the facade never validates responses): about 4 s of a process start.
    quick: true,
  });
  await api.init();
  // openapi-backend rebuilds its flattened operation list (a copy of every operation, through lodash)
  // on each call, and calls it two to four times per request (routing, validation, lookups by id): a
  // quarter of the facade's own CPU time per request in a profile. The definition never changes after
  // init, so the list is built once.
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;

  const folds = caseFoldsOf(operations);
  api.register({
    // Between routing and validation: enum values marked case-insensitive take their documented spelling.
    postRoutingHandler: (c: Context, { request }: Exchange) => {
      if (c.operation?.operationId) foldCase(folds.get(c.operation.operationId), request ?? {});
    },
    notFound: (_c: Context, { req, res }: Exchange) => sendError(res, 'NOT_FOUND', `no endpoint ${req.method} ${req.path}`),
    methodNotAllowed: (_c: Context, { req, res }: Exchange) => {
      const allow = allowedMethods(deps.definition, req.path);
      res.setHeader('Allow', allow.join(', '));
      sendError(res, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}; allowed: ${allow.join(', ')}`);
    },
    unauthorizedHandler: (_c: Context, { res }: Exchange) => {
      res.setHeader('WWW-Authenticate', 'Bearer realm="pylon"');
      sendError(res, 'UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
    },
    validationFail: (c: Context, { req, res }: Exchange) => {
      // A body was sent but not read: its Content-Type is not JSON (often absent, as with curl -d).
      if (sentUnreadBody(req) && (c.validation.errors ?? []).some((e) => e.keyword === 'required' && e.params.missingProperty === 'requestBody')) {
        const type = req.get('content-type');
        sendError(
          res,
          'UNSUPPORTED_MEDIA_TYPE',
          `the body was sent as ${type ? `'${type.split(';')[0]!.slice(0, 100)}'` : 'no Content-Type'}; send it as JSON with the header Content-Type: application/json`,
          { field: 'Content-Type' },
        );
        return;
      }
      const details = detailsOf(c.validation.errors ?? []);
      const first = details[0];
      sendError(res, 'VALIDATION_FAILED', first?.message ?? 'the request is invalid', { field: first?.field, details });
    },
  });

  // Presence only: whether a key or token is valid is the gateway's decision (answered 401 there).
  api.registerSecurityHandler('ApiKeyHeader', (_c: Context, { credentials }: Exchange) => Boolean(credentials.headerKey));
  api.registerSecurityHandler('ApiKeyQuery', (_c: Context, { credentials }: Exchange) => Boolean(credentials.queryKey));
  api.registerSecurityHandler('Bearer', (_c: Context, { credentials }: Exchange) => Boolean(credentials.bearer));

  for (const { operationId, handler } of deps.external ?? []) {
    api.register(operationId, (_c: Context, { req, res }: Exchange) =>
      sendError(res, 'NOT_FOUND', `${req.method} ${req.path.slice(0, 200)} is served by the ${handler} API, which this process does not serve`),
    );
  }
  for (const [operationId, op] of Object.entries(deps.operations)) {
    const document = deps.persisted.get(operationId);
    if (document === undefined && !op.via) throw new Error(`no persisted document for '${operationId}'`);
    api.register(operationId, gatewayHandler(deps, operationId, document, op));
  }
  return api;
}

/** Whether the request carried a body that the JSON parser left alone (not a JSON content type). */
function sentUnreadBody(req: import('express').Request): boolean {
  const length = Number(req.get('content-length') ?? 0);
  return (length > 0 || req.get('transfer-encoding') !== undefined) && !req.is(['application/json', 'application/json-patch+json']);
}
