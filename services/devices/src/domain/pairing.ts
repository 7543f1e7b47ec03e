/**
 * Pairing a screen: a browser opened at /play with no registration key asks for a pairing request
 * and shows its code; an operator claims the code (claimDevice), which creates a device (or binds
 * an existing one, keeping its configuration); the screen, polling with the request's secret,
 * then receives the device's registration key.
 *
 *   pending --claim--> claimed --(screen polls with its secret)--> key delivered
 *      \--(expiresAt passed)--> gone                  \--(CLAIMED_KEEP_SECONDS)--> gone
 *
 * Invariants: a code is single use (the claim is a versioned write: of two racing claims one
 * wins); only the secret (128 random bits, never shown) reveals the key, never the code, which is
 * short enough to read from 3 m and therefore guessable; so claims of unknown codes are counted per
 * account and requests for codes per client address.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';

/** No 0/O, 1/I/L, 2/Z, 5/S, 8/B, 6/G, U/V: nothing that reads as something else on a screen. */
export const PAIRING_ALPHABET = 'ACDEFHJKMNPQRTWXY34679';
export const PAIRING_CODE_LENGTH = 6;
/** How long a code can be claimed. */
export const PAIRING_TTL_SECONDS = 600;
/** How long a claimed request still answers its secret (a poll whose answer was lost can ask again). */
export const CLAIMED_KEEP_SECONDS = 120;
/** Codes one client address may ask for per window. */
export const PAIRING_REQUESTS_PER_WINDOW = 30;
/** Claims of unknown or expired codes one account may make per window, then RATE_LIMITED. */
export const PAIRING_CLAIM_FAILURES_PER_WINDOW = 10;
export const PAIRING_WINDOW_SECONDS = 600;
/** How often the screen should poll (it is told so). */
export const PAIRING_POLL_MS = 2000;

export interface ScreenDetails {
  userAgent: string | null;
  width: number | null;
  height: number | null;
}

export interface PairingRecord {
  code: string;
  secretHash: string;
  status: 'pending' | 'claiming' | 'claimed';
  /** ISO 8601. */
  expiresAt: string;
  screen: ScreenDetails;
  /** Set once claimed. */
  claimedAccountId?: string;
  claimedDeviceId?: string;
}

export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return code;
}

export const newPairingSecret = () => randomBytes(16).toString('base64url');
export const hashPairingSecret = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/** What an operator typed, as a code: case and separators ignored; null when it cannot be one. */
export function normalizePairingCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== PAIRING_CODE_LENGTH) return null;
  for (const c of code) if (!PAIRING_ALPHABET.includes(c)) return null;
  return code;
}

/** The screen's self-description, trimmed to sane sizes (shown to the operator, never trusted). */
export function screenDetails(body: unknown): ScreenDetails {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const dim = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 100_000 ? v : null);
  return {
    userAgent: typeof b.user_agent === 'string' ? b.user_agent.slice(0, 300) : null,
    width: dim(b.width),
    height: dim(b.height),
  };
}
