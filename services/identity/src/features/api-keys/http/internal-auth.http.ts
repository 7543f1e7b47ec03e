/**
 * POST /internal/authenticate: the gateway (distributed mode) resolves an API key or a bearer
 * token to a principal here. Only callers holding the internal secret (a signed internal token of
 * kind 'internal') may ask.
 */
import express, { type Express } from 'express';
import { INTERNAL_TOKEN_HEADER, type InternalTokens } from '@pylon/kit';
import type { BearerAuthenticator } from '../../oauth/bearer.js';
import type { ApiKeyAuthenticator } from '../api-keys.js';

export function mountInternalAuth(app: Express, auth: { authenticator: ApiKeyAuthenticator; bearer: BearerAuthenticator }, tokens: InternalTokens): void {
  app.post('/internal/authenticate', express.json({ limit: '16kb' }), async (req, res) => {
    try {
      const caller = await tokens.verify(req.get(INTERNAL_TOKEN_HEADER));
      if (caller.via !== 'internal') throw new Error('not an internal caller');
    } catch {
      res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'internal credentials required' } });
      return;
    }
    const apiKey = typeof req.body?.apiKey === 'string' ? req.body.apiKey : '';
    const bearer = typeof req.body?.bearer === 'string' ? req.body.bearer : '';
    const principal = apiKey ? await auth.authenticator.authenticate(apiKey) : bearer ? await auth.bearer.authenticate(bearer) : null;
    res.json({ principal });
  });
}
