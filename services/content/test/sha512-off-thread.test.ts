/** The upload's SHA-512 on a worker thread gives the same digest as node:crypto in place, whatever the chunking, and bounds what waits for it. */
import { createHash, randomBytes } from 'node:crypto';
import { sha512 } from '../src/adapters/sha512-off-thread.js';

const MiB = 1 << 20;
const expected = (b: Buffer) => createHash('sha512').update(b).digest('hex');

async function feed(bytes: Buffer, chunk: (i: number) => number): Promise<string> {
  const h = sha512();
  for (let off = 0, i = 0; off < bytes.length; i++) {
    const n = Math.min(chunk(i), bytes.length - off);
    await h.update(bytes.subarray(off, off + n));
    off += n;
  }
  return h.digest();
}

test('same digest as in place: empty, small, exactly one batch, one byte over, several batches in odd chunks', async () => {
  for (const size of [0, 1, 4100, MiB - 1, MiB, MiB + 1, 5 * MiB + 12_345]) {
    const bytes = randomBytes(size);
    expect(await feed(bytes, (i) => [65_536, 1, 3 * MiB, 777][i % 4]!)).toBe(expected(bytes));
  }
});

test('concurrent uploads keep their own state; an aborted one does not disturb the others', async () => {
  const a = randomBytes(3 * MiB + 5);
  const b = randomBytes(2 * MiB + 9);
  const cut = sha512();
  await cut.update(randomBytes(2 * MiB));
  const [da, db] = await Promise.all([feed(a, () => 65_536), feed(b, () => 100_000)]);
  cut.abort();
  cut.abort();
  expect([da, db]).toEqual([expected(a), expected(b)]);
  expect(await feed(a, () => MiB)).toBe(expected(a));
});

test('past 8 MiB waiting for the worker, update asks the caller to wait', async () => {
  const h = sha512();
  const bytes = randomBytes(10 * MiB);
  const waits: (Promise<void> | undefined)[] = [];
  for (let off = 0; off < bytes.length; off += MiB) waits.push(h.update(bytes.subarray(off, off + MiB)));
  // Acknowledgements arrive on later turns of the event loop, so the ninth batch and on must wait.
  expect(waits.slice(0, 7).every((w) => w === undefined)).toBe(true);
  expect(waits[9]).toBeInstanceOf(Promise);
  await Promise.all(waits);
  expect(await h.digest()).toBe(expected(bytes));
});
