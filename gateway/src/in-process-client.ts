import { ERROR_CODES, isAppError, type GatewayClient, type GatewayResult } from '@pylon/kit';
import { invalidCredentialsMessage, type EdgeAuthenticator } from './edge-auth.js';
import type { Gateway } from './gateway.js';

/** The facades' GatewayClient inside the all-in-one process: same authentication and limits, no HTTP hop. */
export function inProcessGatewayClient(gateway: Gateway, auth: EdgeAuthenticator): GatewayClient {
  return {
    async execute<T>(request: Parameters<GatewayClient['execute']>[0], caller: Parameters<GatewayClient['execute']>[1]): Promise<GatewayResult<T>> {
      if (!caller.apiKey && !caller.bearer) {
        return {
          status: 401,
          errors: [
            {
              message:
                caller.via === 'legacy'
                  ? 'the api_key parameter is required'
                  : 'authentication required: send the X-Service-ApiKey header, the api_key parameter or a bearer token',
              extensions: { code: ERROR_CODES.UNAUTHENTICATED.graphql },
            },
          ],
        };
      }
      let principal;
      try {
        principal = await auth.authenticate({ apiKey: caller.apiKey, bearer: caller.bearer, ip: caller.ip });
      } catch (e) {
        if (isAppError(e) && e.code === 'RATE_LIMITED') {
          return {
            status: 429,
            errors: [{ message: e.message, extensions: { code: ERROR_CODES.RATE_LIMITED.graphql, retryAfter: Number(e.details.retryAfter) || 1 } }],
          };
        }
        throw e;
      }
      if (!principal)
        return { status: 401, errors: [{ message: invalidCredentialsMessage(caller), extensions: { code: ERROR_CODES.UNAUTHENTICATED.graphql } }] };
      const result = (await gateway.execute(request, principal, caller.requestId ?? crypto.randomUUID())) as GatewayResult<T>;
      return { ...result, principal: { accountId: principal.accountId, userId: principal.userId, userName: principal.userName } };
    },
  };
}
