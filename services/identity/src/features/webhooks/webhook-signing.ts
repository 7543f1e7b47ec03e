/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}`, HMAC-SHA256 with the secret's bytes (base64 after
 * `whsec_`), sent as `v1,<base64>`; one entry per live secret, separated by spaces (rotation overlap).
 */
import { createHmac } from 'node:crypto';

export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three Standard Webhooks headers for one attempt, signed with every secret still valid at `now`. */
export function webhookHeaders(
  secrets: readonly { secret: string; expiresAt: string | null }[],
  id: string,
  body: string,
  now: number,
): Record<string, string> {
  const ts = Math.floor(now / 1000);
  const live = secrets.filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': live.map((s) => signature(s.secret, id, ts, body)).join(' '),
  };
}
