/**
 * The OAuth server's secrets, generated once and kept in the documents store (system tenant), so
 * every restart and every process signs with the same keys: an RS256 signing key (its public half
 * is the JWKS at /connect/jwks) and the keys that sign the provider's cookies. The first process to
 * start creates them; a concurrent first start loses the insert race and reads the winner's.
 */
import { randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { DocumentStore } from '@pylon/kit';
import { OAuthKeysRepository, type OAuthKeysRecord } from './oauth-keys.repository.js';

export interface OAuthKeys {
  /** Private signing keys (oidc-provider's `jwks`). */
  privateJwks: { keys: JWK[] };
  /** Their public halves, for verifying access tokens. */
  publicJwks: { keys: JWK[] };
  cookieKeys: string[];
}

const PUBLIC_MEMBERS = ['kty', 'kid', 'alg', 'use', 'n', 'e', 'crv', 'x', 'y'] as const;

function toKeys(r: OAuthKeysRecord): OAuthKeys {
  const priv = JSON.parse(r.signingKeys) as JWK[];
  const pub = priv.map((k) => Object.fromEntries(PUBLIC_MEMBERS.filter((m) => k[m] !== undefined).map((m) => [m, k[m]])) as JWK);
  return { privateJwks: { keys: priv }, publicJwks: { keys: pub }, cookieKeys: r.cookieKeys };
}

export async function loadOrCreateOAuthKeys(store: DocumentStore): Promise<OAuthKeys> {
  const repo = new OAuthKeysRepository(store);
  const existing = await repo.find();
  if (existing) return toKeys(existing);
  const { privateKey } = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  const jwk = await exportJWK(privateKey);
  const key: JWK = { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: 'RS256', use: 'sig' };
  return toKeys(await repo.storeFirst({ signingKeys: JSON.stringify([key]), cookieKeys: [randomBytes(32).toString('base64url')] }));
}
