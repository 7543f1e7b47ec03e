/**
 * Distributed mode: the player API (/player/...: pairing, manifest, long-poll pings, commands,
 * play logs, snapshots, menu-board rows) reached through the gateway, so a browser at the
 * gateway's /play talks to one origin (docker-compose publishes each process on its own port and
 * has no path router; the k8s ingress routes /player to the devices process directly).
 *
 * Forwarded as it is to the devices process, which authenticates the registration key (or the
 * pairing secret) itself: no edge credentials are checked or signed. The caller's address goes
 * along as X-Forwarded-For (the devices process limits failed keys and pairing requests per
 * address; it trusts the header from the gateway with TRUST_PROXY). The idle limit is above the
 * longest ping wait, so a long-poll is never cut by the gateway.
 */
import type { Router } from 'express';
import type { InternalTokens } from '@pylon/kit';
import type { EdgeAuthenticator } from './edge-auth.js';
import { forwardToProcess, type EdgeRoute } from './edge-forward.js';

export const PLAYER_EDGE_ROUTES: readonly EdgeRoute[] = (['get', 'post', 'put'] as const).map((method) => ({ method, path: '/player/*rest', public: true }));

export function forwardPlayerApi(o: { devicesUrl: string; auth: EdgeAuthenticator; tokens: InternalTokens; timeoutMs?: number }): Router {
  return forwardToProcess({
    base: o.devicesUrl,
    routes: PLAYER_EDGE_ROUTES,
    auth: o.auth,
    tokens: o.tokens,
    // DEVICE_PING_MAX_WAIT_SECONDS is at most 300.
    timeoutMs: o.timeoutMs ?? 330_000,
    requestHeaders: ['content-encoding'],
    forwardClientAddress: true,
  });
}
