import { AppError } from '@pylon/kit';
import type { Device } from '../../shared/device.repository.js';
import type { DevicesRuntime } from '../../runtime.js';

/** Registration keys are opaque tokens; anything else is refused before a lookup (keys stored before the 32-character minimum still authenticate). */
export const REGISTRATION_KEY = /^[A-Za-z0-9_-]{8,128}$/;

/**
 * A key a player chooses itself (createDevice registrationKey): at least 32 of 64 symbols, as long
 * as the 128-bit keys the service generates, so guessing one is pointless; failed guesses are
 * limited per address besides (player API).
 */
export const CHOSEN_REGISTRATION_KEY = /^[A-Za-z0-9_-]{32,128}$/;

/** One answer for a malformed, unknown or deleted key: nothing about which it was. */
export const badPlayerKey = () => new AppError('UNAUTHENTICATED', 'unknown registration key');

/** The device a player request speaks for (its registration key is its credential). */
export async function authenticatePlayer(rt: Pick<DevicesRuntime, 'repo'>, key: string): Promise<Device> {
  if (!REGISTRATION_KEY.test(key)) throw badPlayerKey();
  const device = await rt.repo.findByRegistrationKey(key);
  if (!device) throw badPlayerKey();
  return device;
}
