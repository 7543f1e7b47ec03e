/**
 * The upload's SHA-512, hashed by a worker thread: the same digest as node:crypto for every size
 * around the 1 MiB batch, independent when uploads interleave, usable after a dropped hash, and
 * never what keeps a process alive (nor lets it end while a digest is awaited).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createSha512, type Sha512 } from '../src/adapters/sha512-off-thread.js';

const MiB = 1 << 20;
const sha512 = (b: Buffer) => createHash('sha512').update(b).digest('hex');

async function feed(h: Sha512, data: Buffer, chunk: number): Promise<void> {
  for (let at = 0; at < data.length; at += chunk) {
    h.update(data.subarray(at, at + chunk));
    await h.whenReady();
  }
}

test.each([0, 1, 4100, MiB - 1, MiB, MiB + 1, 20 * MiB + 7])('%i bytes: the same digest as node:crypto', async (size) => {
  const data = randomBytes(size);
  for (const chunk of [65_536, 1_000_003]) {
    const h = createSha512();
    await feed(h, data, chunk);
    expect(await h.digest()).toBe(sha512(data));
  }
});

test('interleaved hashes stay apart; a dropped one leaves the worker usable', async () => {
  const a = randomBytes(5 * MiB + 3);
  const b = randomBytes(3 * MiB);
  const ha = createSha512();
  const hb = createSha512();
  const dropped = createSha512();
  for (let at = 0; at < a.length; at += 65_536) {
    ha.update(a.subarray(at, at + 65_536));
    hb.update(b.subarray(at, at + 65_536));
    dropped.update(a.subarray(at, at + 65_536));
  }
  dropped.drop();
  expect(await Promise.all([ha.digest(), hb.digest()])).toEqual([sha512(a), sha512(b)]);
  const after = createSha512();
  await feed(after, b, 65_536);
  expect(await after.digest()).toBe(sha512(b));
});

test('more than the queue cap posted at once: whenReady waits for the worker, the digest is right', async () => {
  const data = randomBytes(30 * MiB);
  const h = createSha512();
  for (let at = 0; at < data.length; at += MiB) h.update(data.subarray(at, at + MiB));
  await h.whenReady();
  expect(await h.digest()).toBe(sha512(data));
});

/** tsx compiles the module in the child on a busy 2-core machine: generous. */
const CHILD_LIMIT_MS = 60_000;

test(
  'a process awaiting a digest stays alive for it, then ends by itself',
  async () => {
    const module = new URL('../src/adapters/sha512-off-thread.ts', import.meta.url).href;
    const script = `import { createSha512 } from ${JSON.stringify(module)};
const h = createSha512();
h.update(Buffer.alloc(3 * 1024 * 1024, 7));
console.log(await h.digest());`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: CHILD_LIMIT_MS }, (e, stdout, stderr) =>
        e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(out.trim()).toBe(sha512(Buffer.alloc(3 * MiB, 7)));
  },
  CHILD_LIMIT_MS + 10_000,
);
