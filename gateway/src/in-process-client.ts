import { ERROR_CODES, type GatewayClient } from '@pylon/kit';
import type { EdgeAuthenticator } from './edge-auth.js';
import type { Gateway } from './gateway.js';

/** The facades' GatewayClient inside the all-in-one process: same authentication, no HTTP hop. */
export function inProcessGatewayClient(gateway: Gateway, auth: EdgeAuthenticator): GatewayClient {
  return {
    async execute(request, caller) {
      if (!caller.apiKey && !caller.bearer) {
        return { status: 401, errors: [{ message: caller.via === 'legacy' ? 'the api_key parameter is required' : 'authentication required: send the X-Service-ApiKey header, the api_key parameter or a bearer token', extensions: { code: ERROR_CODES.UNAUTHENTICATED.graphql } }] };
      }
      const principal = await auth.authenticate({ apiKey: caller.apiKey, bearer: caller.bearer });
      if (!principal) return { status: 401, errors: [{ message: 'invalid credentials', extensions: { code: ERROR_CODES.UNAUTHENTICATED.graphql } }] };
      return gateway.execute(request, principal, caller.requestId ?? crypto.randomUUID()) as never;
    },
  };
}
