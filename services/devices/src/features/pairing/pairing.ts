/**
 * Pairing a screen (domain/pairing.ts draws the life cycle): the screen asks for a code
 * (requestPairing) and polls with its secret (pollPairing); an operator claims the code
 * (claimDevice), creating a device or re-binding an existing one.
 */
import { AppError, type Principal } from '@pylon/kit';
import {
  CLAIMED_KEEP_SECONDS,
  hashPairingSecret,
  newPairingCode,
  newPairingSecret,
  normalizePairingCode,
  PAIRING_CLAIM_FAILURES_PER_WINDOW,
  PAIRING_POLL_MS,
  PAIRING_REQUESTS_PER_WINDOW,
  PAIRING_TTL_SECONDS,
  PAIRING_WINDOW_SECONDS,
  screenDetails,
} from '../../domain/pairing.js';
import type { Device } from '../../shared/device.repository.js';
import type { DevicesRuntime } from '../../runtime.js';
import { createDevice } from '../devices/manage-devices.js';

export type PairingDeps = Pick<DevicesRuntime, 'repo' | 'pairings' | 'organizations' | 'devicesChanged' | 'now' | 'cache' | 'logger'>;

const iso = (t: number) => new Date(t).toISOString();

/** Counts one hit against a windowed budget in the cache port (shared when scaled), or per runtime without one. */
const counters = new WeakMap<object, Map<string, { n: number; until: number }>>();
const localOf = (rt: PairingDeps) => {
  let m = counters.get(rt.pairings);
  if (!m) counters.set(rt.pairings, (m = new Map()));
  return m;
};
async function hit(rt: PairingDeps, key: string): Promise<number> {
  if (rt.cache) return rt.cache.incr(key, PAIRING_WINDOW_SECONDS);
  const t = rt.now();
  const local = localOf(rt);
  const e = local.get(key);
  if (!e || e.until <= t) {
    if (local.size > 10_000) local.clear();
    local.set(key, { n: 1, until: t + PAIRING_WINDOW_SECONDS * 1000 });
    return 1;
  }
  return ++e.n;
}
async function hits(rt: PairingDeps, key: string): Promise<number> {
  if (rt.cache) return (await rt.cache.get<number>(key)) ?? 0;
  const e = localOf(rt).get(key);
  return e && e.until > rt.now() ? e.n : 0;
}
const rateLimited = (what: string) =>
  new AppError('RATE_LIMITED', `too many ${what}; retry in ${PAIRING_WINDOW_SECONDS / 60} minutes`, { retryAfter: PAIRING_WINDOW_SECONDS });

export interface PairingStarted {
  code: string;
  secret: string;
  expires_at: string;
  poll_interval_ms: number;
}

/** A new pending request for the screen at `address`; its secret is returned once and stored only as a hash. */
export async function requestPairing(rt: PairingDeps, body: unknown, address: string): Promise<PairingStarted> {
  if ((await hit(rt, `pairing:requests:${address}`)) > PAIRING_REQUESTS_PER_WINDOW) throw rateLimited('pairing codes from this address');
  const at = rt.now();
  await rt.pairings.pruneExpired(iso(at));
  const secret = newPairingSecret();
  const expiresAt = iso(at + PAIRING_TTL_SECONDS * 1000);
  for (let attempt = 0; ; attempt++) {
    const code = newPairingCode();
    try {
      await rt.pairings.add({ code, secretHash: hashPairingSecret(secret), status: 'pending', expiresAt, screen: screenDetails(body) });
      return { code, secret, expires_at: expiresAt, poll_interval_ms: PAIRING_POLL_MS };
    } catch (e) {
      // A code pending for another screen: draw again (a handful of draws among 100M+ codes).
      if ((e as { code?: string }).code !== 'DUPLICATE_KEY' || attempt >= 5) throw e;
    }
  }
}

export type PairingPoll =
  { status: 'pending'; code: string; expires_at: string } | { status: 'claimed'; registration_key: string; device_id: string; name: string };

/** What the screen holding `secret` sees: still pending, or claimed with its key. Unknown or expired: NOT_FOUND. */
export async function pollPairing(rt: PairingDeps, secret: string): Promise<PairingPoll> {
  const gone = () => new AppError('NOT_FOUND', 'this pairing request is unknown or expired; ask for a new code');
  if (typeof secret !== 'string' || secret.length < 10 || secret.length > 100) throw gone();
  const p = await rt.pairings.bySecretHash(hashPairingSecret(secret));
  if (!p || p.expiresAt <= iso(rt.now())) throw gone();
  if (p.status === 'claimed' && p.claimedAccountId && p.claimedDeviceId) {
    const device = await rt.repo.findDevice(p.claimedAccountId, p.claimedDeviceId);
    if (!device) throw gone();
    return { status: 'claimed', registration_key: device.registrationKey, device_id: device.id, name: device.name };
  }
  return { status: 'pending', code: p.code, expires_at: p.expiresAt };
}

/** The screen waiting with this code, for the operator to check before claiming; a miss counts like a failed claim. */
export async function pairingRequest(
  rt: PairingDeps,
  principal: Principal,
  input: string,
): Promise<{ code: string; expiresAt: string; userAgent: string | null; screenWidth: number | null; screenHeight: number | null } | null> {
  const failures = `pairing:claim-failures:${principal.accountId}`;
  if ((await hits(rt, failures)) >= PAIRING_CLAIM_FAILURES_PER_WINDOW) throw rateLimited('unknown pairing codes');
  const code = normalizePairingCode(input);
  const p = code ? await rt.pairings.byCode(code) : null;
  if (!p || p.status !== 'pending' || p.expiresAt <= iso(rt.now())) {
    await hit(rt, failures);
    return null;
  }
  return { code: p.code, expiresAt: p.expiresAt, userAgent: p.screen.userAgent, screenWidth: p.screen.width, screenHeight: p.screen.height };
}

export interface ClaimInput {
  code: string;
  name?: string | null;
  groupId?: string | null;
  timeZone?: string | null;
  /** Re-pair: bind the screen to this existing device (its configuration kept; name, group and time zone ignored). */
  deviceId?: string | null;
}

/** Claims a pending code for the caller's account: a new device (or an existing one); the screen's next poll gets its key. */
export async function claimDevice(rt: PairingDeps, principal: Principal, input: ClaimInput): Promise<Device> {
  const failures = `pairing:claim-failures:${principal.accountId}`;
  if ((await hits(rt, failures)) >= PAIRING_CLAIM_FAILURES_PER_WINDOW) throw rateLimited('unknown pairing codes');
  const code = typeof input.code === 'string' ? normalizePairingCode(input.code) : null;
  const unknown = async () => {
    await hit(rt, failures);
    return new AppError('NOT_FOUND', 'no screen is waiting with this pairing code (codes expire after 10 minutes and pair once)', { field: 'code' });
  };
  if (!code) throw await unknown();
  const p = await rt.pairings.byCode(code);
  if (!p || p.status !== 'pending' || p.expiresAt <= iso(rt.now())) throw await unknown();
  // Reserve the code first (a versioned write): a racing claim loses here, before any device exists.
  const reserved = await rt.pairings.change(p, { status: 'claiming' }).catch((e: unknown) => {
    if ((e as { code?: string }).code === 'VERSION_CONFLICT') return null;
    throw e;
  });
  if (!reserved) throw await unknown();
  let device: Device;
  try {
    device =
      input.deviceId !== undefined && input.deviceId !== null
        ? await rt.repo.getDevice(principal.accountId, input.deviceId)
        : await createDevice(rt, principal, {
            name: input.name ?? `Screen ${code}`,
            ...(input.groupId !== undefined ? { groupId: input.groupId } : {}),
            ...(input.timeZone !== undefined ? { timezone: input.timeZone } : {}),
          });
  } catch (e) {
    // Bad input (an unknown group, a bad zone): the code stays claimable.
    await rt.pairings.change(reserved, { status: 'pending' }).catch(() => undefined);
    throw e;
  }
  await rt.pairings.change(reserved, {
    status: 'claimed',
    claimedAccountId: principal.accountId,
    claimedDeviceId: device.id,
    expiresAt: iso(rt.now() + CLAIMED_KEEP_SECONDS * 1000),
  });
  rt.logger.info({ deviceId: device.id, accountId: principal.accountId }, 'screen paired');
  return device;
}
