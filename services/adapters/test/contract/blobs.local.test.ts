import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createLocalBlobStore } from '../../src/local/blobs.local.js';
import { blobContract, readAll } from '@pylon/kit/contract/blobs.contract';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'pylon-blobs-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

blobContract('local', () => createLocalBlobStore({ dir: root }));

describe('local blob store specifics', () => {
  test('files live under <dir>/<tenant>/<key> with a metadata sidecar; no temp files remain', async () => {
    const dir = join(root, 'layout');
    const store = createLocalBlobStore({ dir });
    await store.put('t1', 'pic.jpg', Buffer.from('jpeg bytes'), 'image/jpeg');
    expect(await readFile(join(dir, 't1', 'pic.jpg'), 'utf8')).toBe('jpeg bytes');
    expect(JSON.parse(await readFile(join(dir, 't1', '.meta', 'pic.jpg.json'), 'utf8'))).toEqual({ contentType: 'image/jpeg', size: 10 });
    expect(await readdir(join(dir, 't1', '.tmp'))).toEqual([]);

    async function* broken() {
      yield Buffer.from('x');
      throw new Error('boom');
    }
    await expect(store.put('t1', 'bad', Readable.from(broken()), 'text/plain')).rejects.toThrow('boom');
    expect(await readdir(join(dir, 't1', '.tmp'))).toEqual([]);

    expect(await store.delete('t1', 'pic.jpg')).toBe(true);
    await expect(stat(join(dir, 't1', '.meta', 'pic.jpg.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('a stream is written in batches: megabytes of assorted chunks and thousands of 1-byte ones stored in order; a failure after several batches leaves nothing', async () => {
    const dir = join(root, 'batches');
    const store = createLocalBlobStore({ dir });
    // 3.5 MB in chunks of assorted sizes (the socket's 64 KB and odd ones), so batches end mid-chunk-run.
    const parts = Array.from({ length: 200 }, (_, i) => Buffer.alloc(1 + ((i * 7919) % 35_000), i % 251));
    const expected = Buffer.concat(parts);
    const info = await store.put('t', 'big.bin', Readable.from(parts), 'application/octet-stream');
    expect(info.size).toBe(expected.length);
    expect((await readFile(join(dir, 't', 'big.bin'))).equals(expected)).toBe(true);

    // Tiny chunks (a chunked body can deliver 1-byte ones): batches close at 1,024 chunks too.
    const tiny = Array.from({ length: 20_000 }, (_, i) => Buffer.from([i % 256]));
    await store.put('t', 'tiny.bin', Readable.from(tiny), 'application/octet-stream');
    expect((await readFile(join(dir, 't', 'tiny.bin'))).equals(Buffer.concat(tiny))).toBe(true);

    async function* failsLate() {
      for (let i = 0; i < 5; i++) yield Buffer.alloc(1 << 20, i);
      throw new Error('client went away');
    }
    await expect(store.put('t', 'late', Readable.from(failsLate()), 'application/octet-stream')).rejects.toThrow('client went away');
    expect(await store.get('t', 'late')).toBeNull();
    expect(await readdir(join(dir, 't', '.tmp'))).toEqual([]);
  });

  test('names starting with a dot are refused (they would reach internal folders)', async () => {
    const store = createLocalBlobStore({ dir: join(root, 'dots') });
    for (const name of ['.', '.meta', '.tmp', '.hidden']) {
      await expect(store.put('t', name, Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      await expect(store.put(name, 'k', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    }
  });

  test('a bad content type is refused', async () => {
    const store = createLocalBlobStore({ dir: join(root, 'ctype') });
    for (const ct of ['', 'text/plain\r\nX-Evil: 1', 'x'.repeat(300)]) {
      await expect(store.put('t', 'k', Buffer.from('x'), ct)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    }
  });

  test('a read in progress is not disturbed by an overwrite or a delete', async () => {
    const store = createLocalBlobStore({ dir: join(root, 'concurrent') });
    const old = Buffer.alloc(512 * 1024, 'a');
    await store.put('t', 'k', old, 'text/plain');
    const reading = await store.get('t', 'k');
    await store.put('t', 'k', Buffer.alloc(1024, 'b'), 'text/plain');
    const reading2 = await store.get('t', 'k');
    await store.delete('t', 'k');
    expect((await readAll(reading!.body)).equals(old)).toBe(true);
    expect(reading!.info.size).toBe(old.length);
    expect((await readAll(reading2!.body)).toString()).toBe('b'.repeat(1024));
  });

  test('concurrent writers of one key leave one complete version', async () => {
    const store = createLocalBlobStore({ dir: join(root, 'race') });
    const versions = Array.from({ length: 8 }, (_, i) => Buffer.alloc(64 * 1024 + i, String(i)));
    await Promise.all(versions.map((v) => store.put('t', 'k', v, 'application/octet-stream')));
    const got = await store.get('t', 'k');
    const body = await readAll(got!.body);
    expect(versions.some((v) => v.equals(body))).toBe(true);
    expect(got!.info.size).toBe(body.length);
  });

  test('a blob whose sidecar is missing is served as octet-stream', async () => {
    const dir = join(root, 'nometa');
    const store = createLocalBlobStore({ dir });
    await store.put('t', 'k', Buffer.from('data'), 'text/plain');
    await rm(join(dir, 't', '.meta', 'k.json'));
    const got = await store.get('t', 'k');
    expect(got!.info).toEqual({ key: 'k', size: 4, contentType: 'application/octet-stream' });
    await readAll(got!.body);
  });

  test('after close, operations reject as unavailable', async () => {
    const store = createLocalBlobStore({ dir: join(root, 'closed') });
    await store.close();
    await expect(store.put('t', 'k', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(store.ping()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
