/**
 * Outbound requests to addresses users give (media URL imports, webhook endpoints) without letting
 * them reach our own network (SSRF). One set of rules for every such request:
 *
 * - Only http: and https:, no credentials in the URL, at most 2,048 characters (checked here,
 *   before anything connects).
 * - Connections go through `request-filtering-agent`, which checks the address the name resolves
 *   to at connect time (DNS rebinding, 2130706433, 0177.0.0.1, [::ffff:127.0.0.1], [::127.0.0.1] gain nothing):
 *   private, loopback, link-local, metadata and unspecified addresses are refused unless the
 *   allow-list names them (on-premise targets; tests' loopback servers). Node's global fetch
 *   ignores agents: callers use node:http/https with these agents.
 * - Callers decide about redirects (media imports re-check each hop; webhooks never follow one).
 */
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { AppError } from '../errors.js';

export const MAX_OUTBOUND_URL_LENGTH = 2048;

/** Parses a user-given http(s) URL; BAD_USER_INPUT naming `field` otherwise. */
export function parseOutboundUrl(raw: unknown, field: string): URL {
  const refuse = (message: string) => new AppError('BAD_USER_INPUT', message, { field });
  if (typeof raw !== 'string' || raw.length === 0) throw refuse(`${field} is required`);
  if (raw.length > MAX_OUTBOUND_URL_LENGTH) throw refuse(`${field} must be at most ${MAX_OUTBOUND_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse(`${field} is not a valid absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw refuse(`${field} must use http or https, not ${url.protocol.replace(/:$/, '').slice(0, 20)}`);
  if (url.username || url.password) throw refuse(`${field} must not carry credentials`);
  return url;
}

export interface OutboundAgents {
  http: RequestFilteringHttpAgent;
  https: RequestFilteringHttpsAgent;
  destroy(): void;
}

/** Agents that refuse non-public addresses (except those the allow-list names). */
export function outboundAgents(allowList: readonly string[], opts: { keepAlive?: boolean } = {}): OutboundAgents {
  // ::/96 holds the deprecated IPv4-compatible addresses ([::127.0.0.1] is written [::7f00:1]),
  // which ipaddr.js ranks "unicast": denied like the IPv4 addresses they embed (issue 34, L5). The
  // deny list applies after the allow-list, which ::1 and :: already need.
  const o = { allowIPAddressList: [...allowList], denyIPAddressList: ['::/96'], keepAlive: opts.keepAlive ?? false };
  const http = new RequestFilteringHttpAgent(o);
  const https = new RequestFilteringHttpsAgent(o);
  return {
    http,
    https,
    destroy() {
      http.destroy();
      https.destroy();
    },
  };
}

/** Whether a connection error is the filter refusing the address (the message request-filtering-agent uses). */
export const isRefusedAddress = (e: unknown): boolean => /is not allowed/.test(e instanceof Error ? e.message : String(e));
