/**
 * POST /internal/authenticate: the gateway (distributed mode) resolves an API key to a
 * principal here. Only callers holding the internal secret (a signed internal token of
 * kind 'internal') may ask.
 */
import express, { type Express } from 'express';
import { INTERNAL_TOKEN_HEADER, type InternalTokens } from '@pylon/kit';
import type { ApiKeyAuthenticator } from './use-cases/api-keys.js';

export function mountInternalAuth(app: Express, authenticator: ApiKeyAuthenticator, tokens: InternalTokens): void {
  app.post('/internal/authenticate', express.json({ limit: '4kb' }), async (req, res) => {
    try {
      const caller = await tokens.verify(req.get(INTERNAL_TOKEN_HEADER));
      if (caller.via !== 'internal') throw new Error('not an internal caller');
    } catch {
      res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'internal credentials required' } });
      return;
    }
    const apiKey = typeof req.body?.apiKey === 'string' ? req.body.apiKey : '';
    const principal = apiKey ? await authenticator.authenticate(apiKey) : null;
    res.json({ principal });
  });
}
