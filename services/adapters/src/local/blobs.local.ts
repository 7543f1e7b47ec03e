/**
 * Embedded BlobStore: files under a data directory.
 *
 * Layout: `<dir>/<tenant>/<key>` holds the bytes, `<dir>/<tenant>/.meta/<key>.json` the
 * metadata ({ contentType, size }), `<dir>/<tenant>/.tmp/` uploads in progress. Tenants and keys
 * must match /^[A-Za-z0-9._-]{1,200}$/, must not start with '.' (so they never reach the
 * internal folders nor `.`/`..`) and must not contain `..`; anything else is refused with
 * AppError('BAD_USER_INPUT').
 *
 * Writes go to a temp file (fsynced) that is then renamed over the target, so a reader sees the
 * old blob or the new one, never half of one. The metadata is renamed first and the data last:
 * the data rename is the commit point. Reads stream from an open file handle, so an overwrite
 * or delete during a read does not cut it short; the size reported is that of the opened file.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, open, readFile, rename, rm, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '@pylon/kit/errors';
import type { BlobInfo, BlobStore } from '@pylon/kit/ports/blobs';
import { checkContentType, checkName, DEFAULT_CONTENT_TYPE } from '../blobs/blobs.shared.js';

export interface LocalBlobStoreOptions {
  dir: string;
}

const isNotFound = (e: unknown) => (e as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/**
 * A stream's chunks are written in batches of about this many bytes (a 200 MB upload: ~200 writes
 * instead of ~3,200 of the socket's 64 KB chunks, each a round trip to the thread pool), or of this
 * many chunks, whichever comes first: a client sending 1-byte chunks (a chunked body does that for
 * ~6 bytes each on the wire) must not make the store hold a million Buffer objects. One batch is in
 * flight while the next is read: at most two batches held.
 */
const WRITE_BATCH_BYTES = 1 << 20;
const WRITE_BATCH_CHUNKS = 1024;

/**
 * Every this many bytes written, the data written so far is flushed to the disk (fdatasync) while
 * the body goes on arriving: the fsync before the commit then waits only for the tail, not for the
 * whole file (a 200 MB upload: ~16 MB instead of 200 MB at the end), and a large upload holds at most
 * about this much unwritten in the page cache. At most one flush runs at a time.
 */
const FLUSH_EVERY_BYTES = 16 << 20;

async function writeBody(handle: FileHandle, body: Buffer | Readable): Promise<number> {
  if (Buffer.isBuffer(body)) {
    await handle.writeFile(body);
    return body.length;
  }
  let size = 0;
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let inFlight: Promise<void> = Promise.resolve();
  let unflushed = 0;
  let flushing: Promise<void> | undefined;
  // A failed flush fails the upload even if the final fsync succeeds (Linux may report a lost write once).
  let flushFailed: { error: unknown } | undefined;
  const startWrite = (buffers: Buffer[], bytes: number) => {
    const write = inFlight.then(() => writeAll(handle, buffers));
    write.catch(() => undefined); // awaited below; a failure meanwhile is not an unhandled rejection
    inFlight = write;
    unflushed += bytes;
    if (unflushed >= FLUSH_EVERY_BYTES && !flushing) {
      unflushed = 0;
      flushing = write
        .then(() => handle.datasync())
        .catch((error: unknown) => void (flushFailed ??= { error }))
        .finally(() => (flushing = undefined));
    }
  };
  try {
    for await (const chunk of body as AsyncIterable<unknown>) {
      const buf = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      batch.push(buf);
      batchBytes += buf.length;
      size += buf.length;
      if (batchBytes >= WRITE_BATCH_BYTES || batch.length >= WRITE_BATCH_CHUNKS) {
        await inFlight;
        startWrite(batch, batchBytes);
        batch = [];
        batchBytes = 0;
      }
    }
    if (batch.length) startWrite(batch, batchBytes);
  } finally {
    // Nothing touches the file after this returns or throws (the caller closes and removes it).
    await inFlight.catch(() => undefined);
    await flushing;
  }
  await inFlight;
  if (flushFailed) throw flushFailed.error;
  return size;
}

/** Writes every byte of `buffers` at the file's position (writev may write fewer at a time). */
async function writeAll(handle: FileHandle, buffers: Buffer[]): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) {
    let { bytesWritten } = await handle.writev(rest);
    let i = 0;
    while (i < rest.length && bytesWritten >= rest[i]!.length) bytesWritten -= rest[i++]!.length;
    rest = rest.slice(i);
    if (bytesWritten > 0) rest[0] = rest[0]!.subarray(bytesWritten);
  }
}

export function createLocalBlobStore(opts: LocalBlobStoreOptions): BlobStore {
  const root = resolve(opts.dir);
  let closed = false;

  const paths = (tenant: string, key: string) => {
    const t = join(root, checkName(tenant, 'tenant'));
    const k = checkName(key, 'key');
    return { tenantDir: t, data: join(t, k), meta: join(t, '.meta', `${k}.json`), metaDir: join(t, '.meta'), tmpDir: join(t, '.tmp') };
  };

  function checkOpen(): void {
    if (closed) throw new AppError('UNAVAILABLE', 'blob store is closed');
  }

  return {
    async put(tenant, key, body, contentType) {
      checkOpen();
      const p = paths(tenant, key);
      const type = checkContentType(contentType);
      if (!Buffer.isBuffer(body) && (typeof body !== 'object' || body === null || typeof (body as Readable)[Symbol.asyncIterator] !== 'function')) {
        throw new AppError('BAD_USER_INPUT', 'blob body must be a Buffer or a readable stream', { field: 'body' });
      }
      await mkdir(p.tmpDir, { recursive: true });
      await mkdir(p.metaDir, { recursive: true });
      const suffix = `${process.pid}-${randomBytes(6).toString('hex')}`;
      const tmpData = join(p.tmpDir, `${key}.${suffix}.data`);
      const tmpMeta = join(p.tmpDir, `${key}.${suffix}.meta`);
      try {
        const handle = await open(tmpData, 'wx', 0o644);
        let size: number;
        try {
          size = await writeBody(handle, body);
          await handle.sync();
        } finally {
          await handle.close();
        }
        const info: BlobInfo = { key, size, contentType: type };
        await writeFile(tmpMeta, JSON.stringify({ contentType: type, size }), { flag: 'wx', mode: 0o644 });
        await rename(tmpMeta, p.meta);
        await rename(tmpData, p.data);
        return info;
      } catch (e) {
        await Promise.all([rm(tmpData, { force: true }), rm(tmpMeta, { force: true })]).catch(() => undefined);
        if (!Buffer.isBuffer(body) && !body.destroyed) body.destroy();
        throw e;
      }
    },

    async get(tenant, key, range) {
      checkOpen();
      const p = paths(tenant, key);
      let handle: FileHandle;
      try {
        handle = await open(p.data, 'r');
      } catch (e) {
        if (isNotFound(e)) return null;
        throw e;
      }
      try {
        const stat = await handle.stat();
        let contentType = DEFAULT_CONTENT_TYPE;
        try {
          const meta = JSON.parse(await readFile(p.meta, 'utf8')) as { contentType?: unknown };
          if (typeof meta.contentType === 'string') contentType = meta.contentType;
        } catch {
          /* metadata missing or unreadable: serve the bytes as octet-stream */
        }
        const body = range
          ? handle.createReadStream({ start: range.start, ...(range.end !== undefined ? { end: range.end } : {}) })
          : handle.createReadStream();
        return { info: { key, size: stat.size, contentType }, body };
      } catch (e) {
        await handle.close().catch(() => undefined);
        throw e;
      }
    },

    async delete(tenant, key) {
      checkOpen();
      const p = paths(tenant, key);
      let existed = true;
      try {
        await unlink(p.data);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        existed = false;
      }
      await rm(p.meta, { force: true });
      return existed;
    },

    async ping() {
      checkOpen();
      try {
        await mkdir(root, { recursive: true });
        await access(root, fsConstants.R_OK | fsConstants.W_OK);
      } catch (e) {
        const err = new AppError('UNAVAILABLE', 'blob store is unavailable');
        err.cause = e;
        throw err;
      }
    },

    async close() {
      closed = true;
    },
  };
}
