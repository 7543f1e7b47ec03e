/**
 * Contract every BlobStore adapter passes. Tenants are unique per test.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobStore } from '../ports/blobs.js';
import { uniqueName } from './wait.js';
import { afterEach, beforeEach, describe, expect, test } from './harness.js';

export async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

export function blobContract(name: string, make: () => BlobStore | Promise<BlobStore>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let store: BlobStore;
    let tenant: string;

    beforeEach(async () => {
      store = await make();
      tenant = uniqueName('tenant');
    });
    afterEach(async () => {
      await store.close();
    });

    test('ping resolves', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    test('put, get and delete round-trip a Buffer', async () => {
      const bytes = randomBytes(4096);
      const info = await store.put(tenant, 'media-1.png', bytes, 'image/png');
      expect(info).toEqual({ key: 'media-1.png', size: 4096, contentType: 'image/png' });

      const got = await store.get(tenant, 'media-1.png');
      expect(got).not.toBeNull();
      expect(got!.info).toEqual({ key: 'media-1.png', size: 4096, contentType: 'image/png' });
      expect((await readAll(got!.body)).equals(bytes)).toBe(true);

      expect(await store.delete(tenant, 'media-1.png')).toBe(true);
      expect(await store.get(tenant, 'media-1.png')).toBeNull();
      expect(await store.delete(tenant, 'media-1.png')).toBe(false);
    });

    test('an empty blob is a blob', async () => {
      await store.put(tenant, 'empty', Buffer.alloc(0), 'text/plain');
      const got = await store.get(tenant, 'empty');
      expect(got!.info.size).toBe(0);
      expect((await readAll(got!.body)).length).toBe(0);
    });

    test('a range reads only those bytes; info keeps the full size', async () => {
      const bytes = randomBytes(10_000);
      await store.put(tenant, 'video', bytes, 'video/mp4');
      const mid = await store.get(tenant, 'video', { start: 100, end: 199 });
      expect(mid!.info.size).toBe(10_000);
      expect((await readAll(mid!.body)).equals(bytes.subarray(100, 200))).toBe(true);
      const tail = await store.get(tenant, 'video', { start: 9_990 });
      expect((await readAll(tail!.body)).equals(bytes.subarray(9_990))).toBe(true);
      const clamped = await store.get(tenant, 'video', { start: 9_999, end: 20_000 });
      expect((await readAll(clamped!.body)).equals(bytes.subarray(9_999))).toBe(true);
    });

    test('a missing blob reads as null', async () => {
      expect(await store.get(tenant, 'nothing-here')).toBeNull();
    });

    test('a streamed body is stored whole, and reads stream back', async () => {
      const parts = Array.from({ length: 40 }, () => randomBytes(64 * 1024 + 7));
      const expected = Buffer.concat(parts);
      async function* produce() {
        for (const p of parts) {
          await new Promise((r) => setImmediate(r));
          yield p;
        }
      }
      const info = await store.put(tenant, 'video.mp4', Readable.from(produce()), 'video/mp4');
      expect(info.size).toBe(expected.length);
      const got = await store.get(tenant, 'video.mp4');
      expect(got!.info.size).toBe(expected.length);
      expect(got!.body).toBeInstanceOf(Readable);
      let chunks = 0;
      const received: Buffer[] = [];
      for await (const c of got!.body) {
        chunks++;
        received.push(c as Buffer);
      }
      expect(chunks).toBeGreaterThan(1);
      expect(Buffer.concat(received).equals(expected)).toBe(true);
    });

    test('overwriting replaces bytes, size and content type', async () => {
      await store.put(tenant, 'shot', Buffer.from('first version, longer'), 'text/plain');
      await store.put(tenant, 'shot', Buffer.from('<b>2</b>'), 'text/html');
      const got = await store.get(tenant, 'shot');
      expect(got!.info).toEqual({ key: 'shot', size: 8, contentType: 'text/html' });
      expect((await readAll(got!.body)).toString()).toBe('<b>2</b>');
    });

    test('tenants are isolated', async () => {
      const other = uniqueName('tenant');
      await store.put(tenant, 'same-key', Buffer.from('mine'), 'text/plain');
      expect(await store.get(other, 'same-key')).toBeNull();
      expect(await store.delete(other, 'same-key')).toBe(false);
      await store.put(other, 'same-key', Buffer.from('theirs'), 'text/plain');
      expect((await readAll((await store.get(tenant, 'same-key'))!.body)).toString()).toBe('mine');
      expect((await readAll((await store.get(other, 'same-key'))!.body)).toString()).toBe('theirs');
    });

    const badNames = ['', '..', '../etc', 'a/b', 'a\\b', '/abs', 'a\0b', 'a..b', 'x'.repeat(201), 'sp ace', 'é', 'a:b', '%2e%2e'];

    test.each(badNames.map((n) => [JSON.stringify(n), n]))('key %s is refused', async (_label, key) => {
      await expect(store.put(tenant, key, Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      await expect(store.get(tenant, key)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      await expect(store.delete(tenant, key)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    });

    test.each(badNames.map((n) => [JSON.stringify(n), n]))('tenant %s is refused', async (_label, bad) => {
      await expect(store.put(bad, 'key', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      await expect(store.get(bad, 'key')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
      await expect(store.delete(bad, 'key')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    });

    test('keys at the edge of the allowed set are accepted', async () => {
      for (const key of ['a', 'A-Z_0.9', 'k'.repeat(200), 'file.tar.gz']) {
        await store.put(tenant, key, Buffer.from(key), 'application/octet-stream');
        expect((await readAll((await store.get(tenant, key))!.body)).toString()).toBe(key);
      }
    });

    test('a body stream that fails leaves no blob behind', async () => {
      async function* broken() {
        yield Buffer.from('partial');
        throw new Error('upload aborted');
      }
      await expect(store.put(tenant, 'broken', Readable.from(broken()), 'text/plain')).rejects.toThrow('upload aborted');
      expect(await store.get(tenant, 'broken')).toBeNull();
    });

    test('a failed overwrite keeps the previous blob', async () => {
      await store.put(tenant, 'keep', Buffer.from('original'), 'text/plain');
      async function* broken() {
        yield Buffer.from('new');
        throw new Error('upload aborted');
      }
      await expect(store.put(tenant, 'keep', Readable.from(broken()), 'text/html')).rejects.toThrow('upload aborted');
      const got = await store.get(tenant, 'keep');
      expect(got!.info.contentType).toBe('text/plain');
      expect((await readAll(got!.body)).toString()).toBe('original');
    });
  });
}
