import { RemoteGraphQLDataSource, type GraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { INTERNAL_TOKEN_HEADER, type AuditNote, type InternalTokens, type Principal, type Subgraph } from '@pylon/kit';

/** What the gateway keeps per incoming request. */
export interface GatewayContext {
  principal: Principal;
  requestId: string;
  /** Memoised internal token for this request (signed once, used by every fetch). */
  internalToken?: Promise<string>;
  /** The HTTP edge's audit note: the operation fills in its type and name (gateway.ts auditPlugin). */
  audit?: AuditNote;
  /** The HTTP edge's rate-limit counter for the caller (edge-auth.ts requestKey): new documents are charged to it (plan-limit.plugin.ts). */
  rateKey?: string;
}

function tokenFor(tokens: InternalTokens, context: Partial<GatewayContext>): Promise<string> {
  if (!context.principal) return Promise.reject(new Error('no principal on the gateway context'));
  context.internalToken ??= tokens.sign(context.principal);
  return context.internalToken;
}

/**
 * Calls a subgraph in the same process: no HTTP, but the same trust boundary as over the
 * wire: the subgraph builds its context only from the signed internal token.
 */
export class InProcessDataSource implements GraphQLDataSource<GatewayContext> {
  constructor(
    private readonly subgraph: Subgraph,
    private readonly tokens: InternalTokens,
  ) {}

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>) {
    const context = options.context as Partial<GatewayContext>;
    const ctx = await this.subgraph.createContext(await tokenFor(this.tokens, context), context.requestId);
    const { query, variables, operationName } = options.request;
    const result = await this.subgraph.execute({ query: query ?? '', ...(variables ? { variables } : {}), ...(operationName ? { operationName } : {}) }, ctx);
    return {
      ...(result.data !== undefined ? { data: result.data as Record<string, unknown> | null } : {}),
      ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}),
    };
  }
}

/** Calls a subgraph over HTTP, carrying the principal as a signed internal token. */
export class SignedRemoteDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  constructor(
    url: string,
    private readonly tokens: InternalTokens,
    timeoutMs: number,
  ) {
    super({
      url,
      fetcher: ((input: string, init?: Record<string, unknown>) => fetch(input, { ...(init as RequestInit), signal: AbortSignal.timeout(timeoutMs) })) as never,
    });
  }

  override async willSendRequest(options: GraphQLDataSourceProcessOptions<GatewayContext>) {
    const context = options.context as Partial<GatewayContext>;
    options.request.http?.headers.set(INTERNAL_TOKEN_HEADER, await tokenFor(this.tokens, context));
    if (context.requestId) options.request.http?.headers.set('x-request-id', context.requestId);
  }
}
