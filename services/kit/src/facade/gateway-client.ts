/**
 * How the REST facade and the legacy adapter reach the gateway: they send only persisted
 * operations (REST: schema/operations/rest.manifest.json; legacy: schema/operations/legacy/*.graphql) with the caller's own
 * credentials. In-process in the all-in-one server, over HTTP when distributed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GraphQLFormattedError } from 'graphql';
import { SCHEMA_DIR } from '../graphql/context.js';
import { fragmentDefinitions, readManifest, restFragments, withSharedFragments } from './persisted-manifest.js';
import type { PrincipalSummary } from '../http/audit.js';

export interface CallerCredentials {
  apiKey?: string | undefined;
  bearer?: string | undefined;
  ip?: string | undefined;
  requestId?: string | undefined;
  /** Which interface the call came through (audit, metrics). */
  via: 'rest' | 'legacy';
}

export interface GatewayRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

export interface GatewayResult<T = Record<string, unknown>> {
  /** HTTP status the gateway answered with (200 for GraphQL-level errors). */
  status: number;
  data?: T | null;
  errors?: readonly GraphQLFormattedError[];
  /** Who the gateway authenticated the call as (absent when it did not): the facades' audit trail. */
  principal?: PrincipalSummary;
}

/** Response headers by which the gateway names the authenticated caller to HTTP facades. */
export const PRINCIPAL_HEADERS = { account: 'x-pylon-account', user: 'x-pylon-user', userName: 'x-pylon-user-name' } as const;

/** Reads the caller named by PRINCIPAL_HEADERS (undefined when the gateway named none). */
export function principalFromHeaders(get: (name: string) => string | null): PrincipalSummary | undefined {
  const accountId = get(PRINCIPAL_HEADERS.account);
  const userId = get(PRINCIPAL_HEADERS.user);
  if (!accountId || !userId) return undefined;
  let userName = get(PRINCIPAL_HEADERS.userName) ?? '';
  try {
    userName = decodeURIComponent(userName);
  } catch {
    /* keep it as sent */
  }
  return { accountId, userId, userName };
}

export interface GatewayClient {
  execute<T = Record<string, unknown>>(request: GatewayRequest, caller: CallerCredentials): Promise<GatewayResult<T>>;
}

/** Where the REST facade's operations are: one manifest generated from its declarations (persisted-manifest.ts). */
export const REST_MANIFEST = 'schema/operations/rest.manifest.json';

/**
 * Loads every persisted operation of one facade, keyed by operationId, each document standing alone
 * (the shared fragments it spreads appended). REST: the generated manifest (REST_MANIFEST). Legacy:
 * the hand-kept schema/operations/legacy/<operationId>.graphql files, which spread the REST
 * fragments (`RestDevice`, ...: rest-facade/src/operations/fragments.ts, read from the manifest
 * that carries them) and the few legacy-only ones in `_fragments.graphql`.
 */
export function loadOperations(facade: 'rest' | 'legacy'): ReadonlyMap<string, string> {
  // Read and parsed once per process: the all-in-one asks for each facade's set two or three times at start.
  let ops = loaded.get(facade);
  if (!ops) loaded.set(facade, (ops = facade === 'rest' ? readManifest(join(SCHEMA_DIR, '..', REST_MANIFEST)) : readOperations(facade)));
  return ops;
}

const loaded = new Map<'rest' | 'legacy', ReadonlyMap<string, string>>();

function readOperations(facade: 'legacy'): Map<string, string> {
  const dir = `${SCHEMA_DIR}operations/${facade}/`;
  const files = readdirSync(dir).filter((f) => f.endsWith('.graphql'));
  const shared = new Map(restFragments(loadOperations('rest')));
  for (const file of files.filter((f) => f.startsWith('_')))
    for (const [name, def] of fragmentDefinitions(readFileSync(dir + file, 'utf8'), `${facade}/${file}`)) shared.set(name, def);
  const ops = new Map<string, string>();
  for (const file of files.filter((f) => !f.startsWith('_')))
    ops.set(file.slice(0, -'.graphql'.length), withSharedFragments(readFileSync(dir + file, 'utf8'), shared, `${facade}/${file}`));
  return ops;
}

/** GatewayClient over HTTP (distributed mode). */
export function createHttpGatewayClient(opts: { url: string; timeoutMs: number }): GatewayClient {
  return {
    async execute(request, caller) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'apollo-require-preflight': 'true' };
      if (caller.apiKey) headers['x-service-apikey'] = caller.apiKey;
      if (caller.bearer) headers.authorization = `Bearer ${caller.bearer}`;
      if (caller.ip) headers['x-forwarded-for'] = caller.ip;
      if (caller.requestId) headers['x-request-id'] = caller.requestId;
      headers['x-pylon-via'] = caller.via;
      try {
        const res = await fetch(opts.url, { method: 'POST', headers, body: JSON.stringify(request), signal: AbortSignal.timeout(opts.timeoutMs) });
        const body = (await res.json()) as { data?: never; errors?: GraphQLFormattedError[] };
        const principal = principalFromHeaders((name) => res.headers.get(name));
        return { status: res.status, ...body, ...(principal ? { principal } : {}) };
      } catch {
        return { status: 503, errors: [{ message: 'the gateway is unavailable', extensions: { code: 'SERVICE_UNAVAILABLE' } }] };
      }
    },
  };
}
