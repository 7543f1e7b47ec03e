/**
 * `npm test`, after jest: every operation that schema/openapi/rest.yaml and the reference API both
 * have got at least one success response validated against the reference during the e2e suites,
 * and every runtime allow-list entry (gateway/test/support/conformance-known-gaps.ts) still occurs.
 * Reads the records the jest workers appended to the directory given as the first argument.
 * `--list` prints, instead, every difference recorded (to write or shrink the allow-list).
 */
import { RUNTIME_KNOWN_GAPS } from '../gateway/test/support/conformance-known-gaps.js';
import { coverage, readRecords, sharedOperations } from '../gateway/test/support/conformance-coverage.js';
import { loadReference, loadRestDocument } from '../gateway/test/support/reference-document.js';

const dir = process.argv.slice(2).find((a) => !a.startsWith('--'));
if (!dir) {
  console.error('usage: check-rest-conformance.ts <records dir> [--list]');
  process.exit(2);
}
const records = readRecords(dir);
if (process.argv.includes('--list')) {
  const all = new Set(records.flatMap((r) => [...r.gaps, ...r.failures]));
  for (const key of [...all].sort()) console.log(key);
  process.exit(0);
}
const shared = sharedOperations(loadRestDocument(), loadReference());
const c = coverage(shared, records, RUNTIME_KNOWN_GAPS);
const problems = [
  ...c.unexercised.map((op) => `${op}: implemented and in the reference, but no e2e call got a success response from it (add one to a REST e2e suite)`),
  ...c.stale.map((g) => `stale known gap: ${g.op} at ${g.at} no longer occurs; delete it from gateway/test/support/conformance-known-gaps.ts`),
  ...c.failures.map((f) => `mismatch not in the allow-list (the call that got it failed its test): ${f}`),
];
if (problems.length) {
  console.error(`REST conformance with the reference API:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(
  `REST conformance: ${c.covered.length} of ${shared.length} shared operations validated against the reference (${records.length} responses, ${RUNTIME_KNOWN_GAPS.length} known gaps)`,
);
