/**
 * The one operation handler: validated REST input -> variables -> persisted operation through the
 * gateway with the caller's own credentials -> REST body, or the error body.
 */
import { pipeline, Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { auditNote, failureFromGraphQL, isAppError, type GatewayClient, type Logger } from '@pylon/kit';
import { apiKeyOf, type RestCredentials } from './credentials.js';
import { sendError } from './errors.js';
import type { RequestParams, RestInput, RestOperation } from './operations/index.js';
import type { GqlRecord } from './operations/shape.js';
import type { AnyVariables, PageFacts } from './operations/types.js';

/** What every openapi-backend handler receives after the context. */
export interface Exchange {
  req: Request;
  res: Response;
  credentials: RestCredentials;
  /** The request openapi-backend routes and validates (its query and body); case folding rewrites it before validation. */
  request?: { query?: unknown; body?: unknown };
}

const compact = (o: Readonly<AnyVariables>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export function gatewayHandler(
  deps: { client: GatewayClient; logger: Logger; persisted?: ReadonlyMap<string, string> },
  operationId: string,
  document: string | undefined,
  op: RestOperation,
) {
  return async (c: Context, { req, res, credentials }: Exchange): Promise<void> => {
    res.locals.route = c.operation.path;
    const note = auditNote(res);
    note.controllerName = c.operation.tags?.[0] ?? 'rest';
    note.actionName = operationId;
    const requestId = typeof res.getHeader('x-request-id') === 'string' ? String(res.getHeader('x-request-id')) : req.get('x-request-id');
    const input: RestInput = {
      // openapi-backend's validated values: coerced to the scalar (or list) type rest.yaml gives each parameter.
      params: (c.request.params ?? {}) as RequestParams,
      query: (c.request.query ?? {}) as RequestParams,
      body: c.request.requestBody,
      ...(req.get('accept') ? { accept: req.get('accept') } : {}),
    };
    try {
      const runId = op.via?.(input) ?? operationId;
      const text = runId === operationId ? document : deps.persisted?.get(runId);
      if (text === undefined) throw new Error(`no persisted document for '${runId}'`);
      const batches = op.batches?.(input);
      const runs = batches ?? [op.variables(input)];
      const answers: GqlRecord[] = [];
      for (const vars of runs) {
        const result = await deps.client.execute(
          { query: text, variables: compact(vars), operationName: runId },
          { apiKey: apiKeyOf(credentials), bearer: credentials.bearer, ip: req.ip, requestId, via: 'rest' },
        );
        note.principal = result.principal;
        const data = result.data ?? null;
        const errors = result.errors ?? [];
        // A null root field means that field failed; anything else is at most a partial answer.
        const failed =
          data === null ||
          Object.entries(data).some(
            ([root, v]) => v === null && !op.optionalRoots?.includes(root) && !(errors.length === 0 && op.nullableRoots?.includes(root)),
          );
        if (errors.length && failed) {
          const failure = failureFromGraphQL(errors, result.status, op.fieldNames);
          if (failure.code === 'INTERNAL' || failure.code === 'UNAVAILABLE' || failure.defect)
            deps.logger.error({ operationId, requestId, status: result.status, errors }, 'REST operation failed in the gateway');
          if (failure.code === 'RATE_LIMITED') res.setHeader('Retry-After', String(failure.retryAfter ?? 1));
          if (failure.code === 'UNAUTHENTICATED') res.setHeader('WWW-Authenticate', 'Bearer realm="pylon"');
          sendError(res, failure.code, failure.message, { field: failure.field });
          return;
        }
        if (errors.length) deps.logger.warn({ operationId, requestId, errors }, 'REST operation answered with partial errors');
        if (data === null || failed) {
          deps.logger.error({ operationId, requestId, status: result.status }, 'gateway answered without data or errors');
          sendError(res, 'INTERNAL', 'internal error');
          return;
        }
        answers.push(data);
      }
      const data = batches ? { batches: answers } : answers[0]!;
      const { status = 200, body, contentType, page, headers } = op.respond(data, input);
      for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
      if (page) setPageHeaders(res, req.originalUrl, page);
      if (status === 204) res.status(204).end();
      else if (contentType && body instanceof Readable) {
        res.status(status).type(contentType);
        // pipeline: a failure mid-stream ends the response instead of an unhandled 'error' event.
        pipeline(body, res, (err) => err && deps.logger.warn({ err, operationId, requestId }, 'REST stream ended early'));
      } else if (contentType) res.status(status).type(contentType).send(body);
      else res.status(status).json(body);
    } catch (e) {
      if (isAppError(e) && e.code !== 'INTERNAL') {
        sendError(res, e.code, e.message, { field: typeof e.details.field === 'string' ? e.details.field : undefined });
        return;
      }
      deps.logger.error({ err: e, operationId, requestId }, 'REST operation failed');
      sendError(res, 'INTERNAL', 'internal error');
    }
  };
}

/**
 * RFC 8288 links to the first, previous and next pages (the request's own path and query with the
 * page index changed; relative references, resolved against the request URL), and `X-Total-Count`
 * when the total is known. The body stays the reference's bare array.
 */
function setPageHeaders(res: Response, originalUrl: string, page: PageFacts): void {
  const url = new URL(originalUrl, 'http://x');
  // A key sent as a parameter is not echoed into a header: the client adds it again.
  url.searchParams.delete('api_key');
  const link = (index: number, rel: string) => {
    url.searchParams.set(page.names.take, String(page.take));
    url.searchParams.set(page.names.page, String(index));
    return `<${url.pathname}${url.search}>; rel="${rel}"`;
  };
  const links = [link(0, 'first')];
  if (page.page > 0) links.push(link(page.page - 1, 'prev'));
  if (page.more) links.push(link(page.page + 1, 'next'));
  res.setHeader('Link', links.join(', '));
  if (page.total !== undefined) res.setHeader('X-Total-Count', String(page.total));
}
