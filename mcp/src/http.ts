/**
 * The remote MCP endpoint: Streamable HTTP at /mcp, authorized as the MCP authorization spec
 * (2025-06-18) describes, with Pylon's own OAuth 2.0 server as the authorization server:
 *   - /.well-known/oauth-protected-resource (and .../mcp, the path-suffixed form clients try first):
 *     RFC 9728 metadata naming the resource (the access tokens' audience) and the issuer;
 *   - /mcp without credentials, or with invalid ones: 401 with
 *     `WWW-Authenticate: Bearer resource_metadata="<that URL>"`, from which a client discovers the
 *     issuer and runs the authorization code flow with PKCE (the public client, pylon-public);
 *   - with a bearer token (or an API key in X-Service-ApiKey, for clients configured with one), each
 *     tool call calls Pylon's own API over HTTP with those credentials: the same authentication,
 *     policies, tenancy, limits and audit as any other caller.
 * Stateless: a server and a transport per request (no session to hijack, any replica answers).
 */
import express, { Router, type Request, type Response } from 'express';
import { createPylonClient, type PylonAuth } from '@pylon/client';

/**
 * The MCP SDK and the tools, loaded on the first call to /mcp rather than at start: they are about
 * 300 modules (0.2 CPU-s on the 2-core machine) that a process serving no agent never needs.
 */
let mcpParts: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('./server.js')]> | undefined;
const loadMcp = () => (mcpParts ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.js')]));

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

export interface McpHttpOptions {
  /**
   * The resource the tokens are for (the OAuth audience), e.g. http://127.0.0.1:4000: the URL clients
   * reach /mcp at (they check the metadata's resource against it); given the request for a process
   * that knows its public URL only from it (the distributed gateway).
   */
  resource: (req: Request) => string | undefined;
  /** The OAuth issuer (authorization server); undefined while it starts. */
  issuer: () => string | undefined;
  /**
   * Whether the request's credentials name a principal (the gateway's edge authenticator): invalid
   * ones get the 401 that starts a client's authorization. May throw a rate-limit error (status 429).
   */
  authenticate: (req: Request) => Promise<boolean>;
  /** Where this process's own API answers (default: the address and port the request came in on). */
  apiBase?: ((req: Request) => string) | undefined;
  docsDir?: string | undefined;
  maxBodyBytes?: number | undefined;
}

/** http://<the local address>:<port> the request reached: the API of this very process. */
export function selfBase(req: Request): string {
  const addr = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `http://${addr.includes(':') ? `[${addr}]` : addr}:${req.socket.localPort}`;
}

const jsonRpcError = (res: Response, status: number, message: string) =>
  res.status(status).json({ jsonrpc: '2.0', error: { code: -32001, message }, id: null });

function credentials(req: Request): PylonAuth | undefined {
  const key = req.get('x-service-apikey');
  if (key) return { apiKey: key };
  const auth = req.get('authorization');
  if (auth && /^bearer\s+\S/i.test(auth)) return { bearer: auth.replace(/^bearer\s+/i, '').trim() };
  return undefined;
}

export function createMcpHttp(o: McpHttpOptions): Router {
  const router = Router();
  const metadataUrl = (req: Request) => `${o.resource(req)}${RESOURCE_METADATA_PATH}${MCP_PATH}`;

  const metadata = (req: Request, res: Response) => {
    const resource = o.resource(req);
    const issuer = o.issuer();
    if (!resource || !issuer) return void res.status(503).type('text/plain').send('the sign-in service is starting');
    res.setHeader('cache-control', 'public, max-age=300');
    res.json({
      resource,
      authorization_servers: [issuer],
      scopes_supported: ['webapi'],
      bearer_methods_supported: ['header'],
      resource_name: 'Pylon',
      resource_documentation: `${resource}/docs`,
    });
  };
  router.get(RESOURCE_METADATA_PATH, metadata);
  router.get(`${RESOURCE_METADATA_PATH}${MCP_PATH}`, metadata);

  const unauthorized = (req: Request, res: Response, invalid: boolean, message: string) => {
    res.setHeader('WWW-Authenticate', `Bearer resource_metadata="${metadataUrl(req)}", scope="webapi"${invalid ? ', error="invalid_token"' : ''}`);
    jsonRpcError(res, 401, message);
  };

  router.all(MCP_PATH, express.json({ limit: o.maxBodyBytes ?? 1_000_000 }), async (req, res, next) => {
    // DNS rebinding (the transport spec's Origin rule): a browser page of another origin never reaches the tools.
    const origin = req.get('origin');
    if (origin && (origin === 'null' || !URL.canParse(origin) || new URL(origin).host !== req.get('host')))
      return jsonRpcError(res, 403, 'cross-origin requests are refused');
    const auth = credentials(req);
    if (!auth) return unauthorized(req, res, false, 'authorization required: sign in with OAuth (see the resource metadata) or send X-Service-ApiKey');
    try {
      if (!(await o.authenticate(req))) return unauthorized(req, res, true, 'invalid credentials: unknown, revoked or expired token or key');
    } catch (e) {
      const status = (e as { status?: unknown }).status;
      if (status === 429 || (e as { code?: unknown }).code === 'RATE_LIMITED') {
        const retryAfter = Number((e as { details?: { retryAfter?: unknown } }).details?.retryAfter) || 1;
        res.setHeader('Retry-After', String(retryAfter));
        return jsonRpcError(res, 429, 'rate limited');
      }
      return next(e);
    }
    // Stateless Streamable HTTP: POST carries the JSON-RPC; there is no session stream to GET or DELETE.
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return jsonRpcError(res, 405, 'this server is stateless: POST JSON-RPC messages to /mcp');
    }
    const client = createPylonClient({
      baseUrl: (o.apiBase ?? selfBase)(req),
      auth,
      // The caller's address for the API's limits and audit (trusted from loopback, as a proxy's).
      headers: { 'x-forwarded-for': req.ip ?? '', 'x-request-id': String(res.getHeader('x-request-id') ?? crypto.randomUUID()) },
    });
    try {
      const [{ StreamableHTTPServerTransport }, { createPylonMcpServer }] = await loadMcp();
      const server = createPylonMcpServer({ client, docsDir: o.docsDir });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (e) {
      next(e);
    }
  });
  return router;
}
