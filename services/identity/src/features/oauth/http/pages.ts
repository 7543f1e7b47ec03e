/** The sign-in, consent and error pages of the OAuth server: plain HTML, every value escaped. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#222}' +
  'label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.45rem;box-sizing:border-box}' +
  'button{margin-top:1rem;padding:.5rem 1rem}.error{color:#a00}.muted{color:#666;font-size:.9rem}';

/** Pages are data, not apps: no scripts, no frames, styles inline only. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function renderLoginPage(o: { uid: string; clientName: string; error?: string; username?: string }): string {
  const action = `/connect/interaction/${encodeURIComponent(o.uid)}/login`;
  return page(
    'Sign in to Pylon',
    `<h1>Sign in</h1><p class="muted">${escapeHtml(o.clientName)} asks you to sign in to Pylon.</p>` +
      (o.error ? `<p class="error" role="alert">${escapeHtml(o.error)}</p>` : '') +
      `<form method="post" action="${escapeHtml(action)}" autocomplete="on">` +
      `<label for="username">Username</label><input id="username" name="username" required autofocus value="${escapeHtml(o.username ?? '')}">` +
      '<label for="password">Password</label><input id="password" name="password" type="password" required>' +
      '<button type="submit">Sign in</button></form>' +
      `<form method="post" action="/connect/interaction/${escapeHtml(encodeURIComponent(o.uid))}/abort"><button type="submit">Cancel</button></form>`,
  );
}

export function renderConsentPage(o: { uid: string; clientName: string; userName: string; scopes: string[] }): string {
  const base = `/connect/interaction/${escapeHtml(encodeURIComponent(o.uid))}`;
  return page(
    'Allow access',
    `<h1>Allow access</h1><p>${escapeHtml(o.clientName)} asks to use Pylon as <strong>${escapeHtml(o.userName)}</strong>:</p>` +
      `<ul>${o.scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join('')}</ul>` +
      `<form method="post" action="${base}/confirm"><button type="submit">Allow</button></form>` +
      `<form method="post" action="${base}/abort"><button type="submit">Deny</button></form>`,
  );
}

export function renderErrorPage(error: string, description: string): string {
  return page('Sign-in error', `<h1>Sign-in error</h1><p class="error">${escapeHtml(error)}</p><p>${escapeHtml(description)}</p>`);
}
