/** The contract suites' helpers (src/contract/wait.ts, shipped with the suites) and what only tests use. */
export { settlesWithin, sleep, uniqueName, waitFor } from '../../src/contract/wait.js';

/**
 * Says why a suite is skipped. Jest's default reporter drops console output of a file whose
 * tests were all skipped (it shows only with --verbose), so say it on stderr as well.
 */
export function skipNote(message: string): void {
  console.log(message);
  process.stderr.write(`${message}\n`);
}
