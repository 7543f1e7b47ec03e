/** Issue 20, finding 8: client-chosen registration keys need entropy, not only length and alphabet. */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { estimateKeyEntropy, MIN_CHOSEN_KEY_BITS } from '../../src/domain/key-entropy.js';

// noBias: generated keys are uniformly random bytes; fast-check's default bias towards small values
// (e.g. sixteen zero bytes) is not a key anyone is handed.
test('keys made like the generated ones (random hex, base64url) always pass', () => {
  fc.assert(
    fc.property(fc.noBias(fc.uint8Array({ minLength: 16, maxLength: 16 })), (bytes) => {
      expect(estimateKeyEntropy(Buffer.from(bytes).toString('hex'))).toBeGreaterThanOrEqual(MIN_CHOSEN_KEY_BITS);
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.noBias(fc.uint8Array({ minLength: 24, maxLength: 48 })), (bytes) => {
      expect(estimateKeyEntropy(Buffer.from(bytes).toString('base64url'))).toBeGreaterThanOrEqual(MIN_CHOSEN_KEY_BITS);
    }),
    { numRuns: 2000 },
  );
  for (let i = 0; i < 5000; i++) expect(estimateKeyEntropy(randomBytes(16).toString('hex'))).toBeGreaterThanOrEqual(MIN_CHOSEN_KEY_BITS);
});

test.each([
  'a'.repeat(32),
  'A'.repeat(128),
  '0'.repeat(64),
  'ab'.repeat(16),
  '01'.repeat(32),
  'abc'.repeat(11),
  'deadbeef'.repeat(4),
  'abcdefghijklmnopqrstuvwxyzABCDEF',
  '0123456789'.repeat(4),
  'zyxwvutsrqponmlkjihgfedcbaZYXWVU',
  'a'.repeat(31) + 'b',
  'aaaabbbbccccddddeeeeffffgggghhhh',
  '0101010110101010010101011010101001',
  'player-01-player-01-player-01-pl',
])('%s is refused', (key) => {
  expect(estimateKeyEntropy(key)).toBeLessThan(MIN_CHOSEN_KEY_BITS);
});

test('any key built by repeating a short random chunk is refused', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_'), minLength: 1, maxLength: 4 }),
      (chunk) => {
        const key = chunk.repeat(Math.ceil(32 / chunk.length) + 1).slice(0, 40);
        expect(estimateKeyEntropy(key)).toBeLessThan(MIN_CHOSEN_KEY_BITS);
      },
    ),
  );
});

// Issue 34, L5: keyboard walks (zxcvbn's spatial matcher) are as guessable as alphabet runs.
test.each([
  'qwertyuiopasdfghjklzxcvbnmQWERTY',
  'qwertyuiop[]asdfghjkl;zxcvbnm,./1234567890-=',
  '1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p',
  'zaq1xsw2cde3vfr4bgt5nhy6mju7,ki8.lo9/;p0',
  'poiuytrewqlkjhgfdsamnbvcxzPOIUYTREWQ',
  'QWERTYUIOPASDFGHJKLZXCVBNMqwertyuiop',
])('the keyboard walk %s is refused', (key) => {
  expect(estimateKeyEntropy(key)).toBeLessThan(MIN_CHOSEN_KEY_BITS);
});
