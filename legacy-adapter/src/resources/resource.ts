/**
 * One legacy resource = method + path + the persisted operations it runs + how it is written out.
 * `defineResource` wires the common steps: refuse format=rss unless the resource has an RSS view,
 * run the handler with the caller's credentials, render in the negotiated format.
 */
import type { NextFunction, Request, Response, Router } from 'express';
import { AppError, auditNote, inputError, type JsonObject } from '@pylon/kit';
import type { z } from 'zod';
import { callerOf } from '../http/api-key.js';
import { negotiated } from '../http/negotiation.js';
import type { LegacyData, LegacyOperationId, LegacyVariables, OperationRunner } from '../operations.js';
import { sendData, type View } from '../render/respond.js';

/** The query as Express parsed it (qs: a string, a list, or a nested object per name), not yet checked. */
export type LegacyQuery = Request['query'];

export interface ResourceContext {
  query: LegacyQuery;
  params: Record<string, string>;
  /** The parsed, checked request body (content of the root element for XML). */
  body: unknown;
  /** The XML root element name, when the body was XML. */
  bodyRoot?: string;
  /**
   * Runs a persisted operation as the caller; its answer is typed by the document
   * (schema/operations/legacy/<operationId>.graphql, else the REST one of that name).
   */
  run<N extends LegacyOperationId>(operationId: N, variables?: LegacyVariables<N>): Promise<LegacyData<N>>;
  /** An absolute address for a file address (fileUrl may be relative to the REST base; RSS needs absolute ones). */
  absoluteUrl(url: string): string;
}

export type { LegacyData, LegacyOperationId, LegacyVariables } from '../operations.js';

export interface MountOptions {
  /** Base of relative file addresses (the REST interface, which serves /content/files); default: this request's origin. */
  filesBaseUrl?: () => string | undefined;
}

export interface LegacyResource<T> {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  /** Persisted operation ids this resource runs (checked when the app is built). */
  operations: readonly string[];
  view: View<T>;
  /** Success status (default 200). */
  status?: number;
  handle(ctx: ResourceContext): Promise<T>;
}

export interface DefinedResource {
  method: string;
  path: string;
  operations: readonly string[];
  mount(router: Router, runner: OperationRunner, options?: MountOptions): void;
}

export function defineResource<T>(r: LegacyResource<T>): DefinedResource {
  return {
    method: r.method,
    path: r.path,
    operations: r.operations,
    mount(router, runner, options = {}) {
      router[r.method](r.path, async (req: Request, res: Response, next: NextFunction) => {
        try {
          if (negotiated(res).format === 'rss' && !r.view.rss)
            throw new AppError('UNSUPPORTED_FORMAT', `format=rss is not offered for ${r.path}; use json or xml`, { field: 'format' });
          const caller = callerOf(req, res);
          const note = auditNote(res);
          note.controllerName = r.path.split('/')[1] || 'root';
          note.actionName = r.operations.join(',');
          const data = await r.handle({
            query: req.query,
            params: req.params as Record<string, string>,
            body: res.locals.body,
            ...(typeof res.locals.bodyRoot === 'string' ? { bodyRoot: res.locals.bodyRoot } : {}),
            absoluteUrl: (url) => new URL(url, options.filesBaseUrl?.() ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`).href,
            run: <N extends LegacyOperationId>(id: N, variables: LegacyVariables<N> = {}) =>
              runner.run(id, variables, caller, (result) => {
                if (result.principal) note.principal = result.principal;
              }),
          });
          sendData(res, data, r.view, r.status);
        } catch (e) {
          next(e);
        }
      });
    },
  };
}

/** `'GET /devices/:id'` */
export type ResourceAt = `${'GET' | 'POST' | 'PUT' | 'DELETE'} /${string}`;

/** What a resource that runs one operation is handed: the request, and `call` running that operation as the caller. */
export type OperationContext<N extends LegacyOperationId> = ResourceContext & { call(variables?: LegacyVariables<N>): Promise<LegacyData<N>> };

/**
 * A resource that runs one persisted operation, named once:
 *
 *   resource('GET /devices/:id', 'getDevice', { root: 'device' }, async ({ params, call }) => toLegacyDevice(...(await call({ id: params.id }))))
 */
export function resource<T, N extends LegacyOperationId>(
  at: ResourceAt,
  operation: N,
  view: View<T>,
  handle: (ctx: OperationContext<N>) => Promise<T>,
  options: { status?: number } = {},
): DefinedResource {
  const space = at.indexOf(' ');
  return defineResource<T>({
    method: at.slice(0, space).toLowerCase() as LegacyResource<T>['method'],
    path: at.slice(space + 1),
    operations: [operation],
    view,
    ...options,
    handle: (ctx) => handle({ ...ctx, call: (variables) => ctx.run(operation, variables) }),
  });
}

/** 404 naming the id asked for (at most 100 characters of it). Another account's record is as unknown as a missing one. */
export const notFoundById = (what: string, id: unknown) => new AppError('NOT_FOUND', `${what} '${String(id).slice(0, 100)}' was not found`);

/**
 * Validates query parameters with a zod schema; the first problem becomes a 400 naming the
 * parameter (`field`) in the kit's words, as the subgraphs and the REST facade say it:
 * `limit must be at most 10000`, `interval must be one of: minute, hour, day, week, month`.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: Readonly<JsonObject>): z.infer<S> {
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const error = inputError(result.error.issues);
  throw error.details.field === undefined ? new AppError(error.code, error.message, { field: 'query' }) : error;
}
