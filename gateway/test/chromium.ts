/**
 * Chromium for the browser tests (Debian's package, driven by playwright-core): where it is, whether
 * it is there, jest's `test` for a file that needs it, the flags for a page under test and where
 * screenshots go.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './processes.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

/** .tmp/screenshots/, or with UPDATE_SCREENSHOTS=true docs/screenshots/ (the pictures the docs show). */
export const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === 'true';
export const SHOTS = join(ROOT, UPDATE_SCREENSHOTS ? 'docs/screenshots' : '.tmp/screenshots');

/** Flags for a page under test in a container: no sandbox, GPU or QUIC, no first-run or background traffic. */
export const PAGE_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * jest's `test` where chromium is, and in CI (CI=true: `.ci/run` installs it, so its absence fails
 * there); elsewhere `test.skip`, with a warning that names what is skipped (`the web player test`).
 */
export function browserTest(what: string): jest.It {
  if (!haveChromium && process.env.CI !== 'true') {
    console.warn(`skipping ${what}: no chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  }
  return haveChromium || process.env.CI === 'true' ? test : test.skip;
}
