/**
 * sha512 (src/sha512.ts): the upload's SHA-512 on a worker thread, fed through a ring of shared
 * memory. The digest is the one node:crypto computes, whatever the chunk sizes; busy workers mean
 * the event loop hashes; a discarded hash leaves its worker clean; an idle worker keeps no process alive.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { sha512 } from '../../src/sha512.js';

const MB = 1 << 20;
const reference = (chunks: Buffer[]) => chunks.reduce((h, c) => h.update(c), createHash('sha512')).digest('hex');

async function hashAll(chunks: Buffer[]) {
  const h = sha512();
  for (const c of chunks) await h.update(c);
  return { offThread: h.offThread, digest: await h.digest() };
}

test('the digest is node:crypto’s for small, socket-sized, ring-sized and larger-than-the-ring chunks', async () => {
  const cases: Buffer[][] = [
    [],
    [Buffer.from('abc')],
    Array.from({ length: 200 }, (_, i) => randomBytes(1 + ((i * 7919) % 65536))),
    [randomBytes(8 * MB)], // exactly the ring
    [randomBytes(3), randomBytes(20 * MB + 5), randomBytes(MB - 1)], // wraps the ring several times
  ];
  for (const chunks of cases) {
    const got = await hashAll(chunks);
    expect(got.offThread).toBe(true);
    expect(got.digest).toBe(reference(chunks));
  }
});

test('on the event loop too, a hash is done after its digest or a discard', async () => {
  const busy = [sha512(), sha512()];
  const h = sha512();
  expect(h.offThread).toBe(false);
  h.discard();
  await expect(h.digest()).rejects.toThrow('already done');
  expect(() => h.update(Buffer.from('x'))).toThrow('already done');
  await Promise.all(busy.map((b) => b.digest()));
});

test('a chunk may be reused once update resolved: the hash has its own copy', async () => {
  const h = sha512();
  const buf = Buffer.alloc(64 * 1024, 1);
  await h.update(buf);
  buf.fill(2);
  await h.update(buf);
  expect(await h.digest()).toBe(reference([Buffer.alloc(64 * 1024, 1), Buffer.alloc(64 * 1024, 2)]));
});

test('two uploads hash on two workers at once; a third, meanwhile, on the event loop; all digests right', async () => {
  const [a, b, c] = [sha512(), sha512(), sha512()];
  expect([a.offThread, b.offThread, c.offThread]).toEqual([true, true, false]);
  const data = [randomBytes(3 * MB), randomBytes(5 * MB), randomBytes(MB)];
  await Promise.all([a.update(data[0]!), b.update(data[1]!), c.update(data[2]!)]);
  expect(await Promise.all([a.digest(), b.digest(), c.digest()])).toEqual(data.map((d) => reference([d])));
  // Both workers are free again.
  const [d, e] = [sha512(), sha512()];
  expect([d.offThread, e.offThread]).toEqual([true, true]);
  await Promise.all([d.digest(), e.digest()]);
});

test('a discarded hash (a failed upload) leaves its worker clean for the next one', async () => {
  const failed = sha512();
  expect(failed.offThread).toBe(true);
  await failed.update(randomBytes(3 * MB));
  failed.discard();
  failed.discard(); // twice is harmless
  await expect(failed.digest()).rejects.toThrow('already done');
  const chunks = [randomBytes(2 * MB), randomBytes(100)];
  // The discard settles in the background; whichever worker the next hash gets, it starts from nothing.
  for (let i = 0; i < 3; i++) expect((await hashAll(chunks)).digest).toBe(reference(chunks));
});

test('a process whose workers are idle exits on its own (the workers do not hold it)', () => {
  const script = `
    import { sha512 } from ${JSON.stringify(new URL('../../src/sha512.ts', import.meta.url).pathname)};
    const h = sha512();
    await h.update(Buffer.from('abc'));
    console.log(h.offThread, await h.digest());`;
  // 60 s: a tsx start on a busy 2-core machine; an idle worker holding the process would hit it.
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  expect(out.trim()).toBe(`true ${reference([Buffer.from('abc')])}`);
});
