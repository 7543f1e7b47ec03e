/**
 * How the REST facade and the legacy adapter reach the gateway: they send only persisted
 * operations (schema/operations/<facade>/<operationId>.graphql) with the caller's own
 * credentials. In-process in the all-in-one server, over HTTP when distributed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { GraphQLFormattedError } from 'graphql';
import { SCHEMA_DIR } from '../graphql/subgraph.js';

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
}

export interface GatewayClient {
  execute<T = Record<string, unknown>>(request: GatewayRequest, caller: CallerCredentials): Promise<GatewayResult<T>>;
}

/** Loads every persisted operation of one facade, keyed by operationId (the file name). */
export function loadOperations(facade: 'rest' | 'legacy'): Map<string, string> {
  const dir = `${SCHEMA_DIR}operations/${facade}/`;
  const ops = new Map<string, string>();
  for (const file of readdirSync(dir)) {
    if (file.endsWith('.graphql')) ops.set(file.slice(0, -'.graphql'.length), readFileSync(dir + file, 'utf8'));
  }
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
        return { status: res.status, ...body };
      } catch {
        return { status: 503, errors: [{ message: 'the gateway is unavailable', extensions: { code: 'SERVICE_UNAVAILABLE' } }] };
      }
    },
  };
}
