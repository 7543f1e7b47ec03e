/**
 * The OAuth server's user-facing steps, at /connect/interaction/:uid: sign-in (username and
 * password, scrypt-checked, throttled per IP and per username) and consent (shown once per user
 * and client; the grant is stored and reused). oidc-provider binds each interaction to a cookie,
 * so a form posted from another site or another browser finds no interaction.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type Provider from 'oidc-provider';
import { auditNote, type RateLimiter } from '@pylon/kit';
import { verifyPassword } from '../../../domain/passwords.js';
import type { IdentityRepository } from '../../../shared/identity.repository.js';
import { PAGE_CSP, renderConsentPage, renderLoginPage } from './pages.js';
import { INTERACTION_PREFIX, parseSubject, subjectOf } from '../../../domain/oauth-settings.js';

export interface InteractionDeps {
  provider: () => Provider;
  repo: IdentityRepository;
  /** Failed sign-ins per IP and per username; refused with 429 once exceeded. */
  loginLimiter?: RateLimiter | undefined;
}

const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

function html(res: Response, status: number, body: string): void {
  res
    .status(status)
    .set({ 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store', 'x-frame-options': 'DENY' })
    .send(body);
}

export function interactionRoutes(d: InteractionDeps): Router {
  const router = express.Router();
  const wrap = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response, next: NextFunction) => fn(req, res).catch(next);
  const clientName = async (id: unknown) => (await d.provider().Client.find(String(id)))?.clientName ?? String(id);

  router.get(
    `${INTERACTION_PREFIX}/:uid`,
    wrap(async (req, res) => {
      auditNote(res).actionName = 'interaction';
      const details = await d.provider().interactionDetails(req, res);
      const name = await clientName(details.params.client_id);
      if (details.prompt.name === 'login') return html(res, 200, renderLoginPage({ uid: details.uid, clientName: name }));
      const ref = details.session?.accountId ? parseSubject(details.session.accountId) : null;
      const user = ref ? await d.repo.findUser(ref.accountId, ref.userId) : null;
      const scopes = String(details.params.scope ?? '')
        .split(' ')
        .filter(Boolean);
      html(res, 200, renderConsentPage({ uid: details.uid, clientName: name, userName: user?.username ?? '', scopes }));
    }),
  );

  router.post(
    `${INTERACTION_PREFIX}/:uid/login`,
    form,
    wrap(async (req, res) => {
      const note = auditNote(res);
      note.actionName = 'login';
      const provider = d.provider();
      const details = await provider.interactionDetails(req, res);
      const username = typeof req.body?.username === 'string' ? req.body.username.trim().slice(0, 100) : '';
      const password = typeof req.body?.password === 'string' ? req.body.password : '';
      const keys = [`ip:${req.ip ?? ''}`, `user:${username.toLowerCase()}`];
      if (d.loginLimiter) {
        for (const key of keys) {
          const state = await d.loginLimiter.peek(key);
          if (!state.allowed) {
            res.setHeader('Retry-After', String(state.retryAfterSeconds));
            note.eventType = 'LoginFailed';
            return html(
              res,
              429,
              renderLoginPage({
                uid: details.uid,
                clientName: await clientName(details.params.client_id),
                username,
                error: `Too many failed sign-ins; try again in ${state.retryAfterSeconds} s.`,
              }),
            );
          }
        }
      }
      const user = username ? await d.repo.findUserByUsername(username) : null;
      // The hash is checked even for an unknown user's dummy, so timing does not tell names apart.
      const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
      // A disabled user is refused like a wrong password: the page does not tell who is off-boarded.
      if (!user || !ok || !user.passwordHash || user.disabled) {
        note.eventType = 'LoginFailed';
        if (user) note.principal = { accountId: user.accountId, userId: user.id, userName: user.username };
        if (d.loginLimiter) for (const key of keys) await d.loginLimiter.consume(key);
        return html(
          res,
          401,
          renderLoginPage({ uid: details.uid, clientName: await clientName(details.params.client_id), username, error: 'Unknown username or wrong password.' }),
        );
      }
      note.eventType = 'Login';
      note.principal = { accountId: user.accountId, userId: user.id, userName: user.username };
      await provider.interactionFinished(req, res, { login: { accountId: subjectOf(user.accountId, user.id) } }, { mergeWithLastSubmission: false });
    }),
  );

  router.post(
    `${INTERACTION_PREFIX}/:uid/confirm`,
    wrap(async (req, res) => {
      auditNote(res).actionName = 'consent';
      const provider = d.provider();
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name !== 'consent' || !details.session?.accountId) {
        res.status(400).type('text/plain').send('nothing to confirm');
        return;
      }
      const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session.accountId, clientId: String(details.params.client_id) });
      if (!grant) throw new Error('the grant of this interaction is gone');
      if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
      if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, details.grantId ? { consent: {} } : { consent: { grantId } }, { mergeWithLastSubmission: true });
    }),
  );

  router.post(
    `${INTERACTION_PREFIX}/:uid/abort`,
    wrap(async (req, res) => {
      auditNote(res).actionName = 'abort';
      await d.provider().interactionFinished(req, res, { error: 'access_denied', error_description: 'the user refused' }, { mergeWithLastSubmission: false });
    }),
  );

  return router;
}

/** A valid hash of a random password, checked when the username is unknown. */
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
