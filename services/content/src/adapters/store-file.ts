/**
 * Streams one incoming file into the blob port: never buffered whole. The first bytes are held
 * back just long enough to learn the type from them (`file-type`, magic bytes; what the client
 * claims is ignored), then everything flows through a SHA-512 (on a worker thread: @pylon/kit/sha512) and a
 * byte counter into `put`.
 * Past the size cap (413), an unrefused type (415) or a failing source (client gone, import cut),
 * the stream errors, the blob port drops its temporary file, and nothing is stored.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { AppError } from '@pylon/kit';
import type { ContentRuntime } from '../runtime.js';
import { sha512 } from '@pylon/kit/sha512';

/** file-type reads at most this many bytes to decide. */
const SNIFF_BYTES = 4100;

export interface StoredFile {
  key: string;
  size: number;
  sha512: string;
  mimeType: string;
  ext: string;
}

const toBuffer = (c: unknown): Buffer => (Buffer.isBuffer(c) ? c : typeof c === 'string' ? Buffer.from(c) : Buffer.from(c as Uint8Array));

/** SVG is text (no magic bytes): refused on purpose, so the refusal says why. */
const looksLikeSvg = (head: Buffer) =>
  /^(\ufeff)?\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!doctype svg[^>]*>\s*)?<svg[\s>]/i.test(head.toString('utf8', 0, 1024));

export function isAllowedType(rt: ContentRuntime, mime: string): boolean {
  return rt.settings.allowedTypes.some((t) => (t.endsWith('/') ? mime.startsWith(t) : mime === t));
}

export async function storeFile(rt: ContentRuntime, tenant: string, source: AsyncIterable<unknown> & { destroy?: (e?: Error) => void }): Promise<StoredFile> {
  const max = rt.settings.maxUploadBytes;
  const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `the file is larger than the ${max} bytes allowed`, { field: 'file' });
  const it = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  try {
    while (headBytes < SNIFF_BYTES) {
      const r = await it.next();
      if (r.done) {
        ended = true;
        break;
      }
      const b = toBuffer(r.value);
      head.push(b);
      headBytes += b.length;
      if (headBytes > max) throw tooLarge();
    }
  } catch (e) {
    await it.return?.();
    throw e;
  }
  if (headBytes === 0) throw new AppError('BAD_USER_INPUT', 'the file is empty', { field: 'file' });
  const first = Buffer.concat(head);
  const type = await fileTypeFromBuffer(first);
  if (!type || !isAllowedType(rt, type.mime)) {
    await it.return?.();
    source.destroy?.();
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      looksLikeSvg(first)
        ? 'SVG files are not accepted (they can carry scripts that would run from this origin); upload a PNG or another raster image'
        : type
          ? `files of type ${type.mime} are not accepted`
          : 'the file type is not recognised from its content; accepted: images, video, audio and PDF',
      { field: 'file' },
    );
  }

  const hash = sha512();
  let size = 0;
  async function* body(): AsyncGenerator<Buffer> {
    await hash.update(first);
    size = first.length;
    yield first;
    if (ended) return;
    for (let r = await it.next(); !r.done; r = await it.next()) {
      const b = toBuffer(r.value);
      size += b.length;
      if (size > max) throw tooLarge();
      await hash.update(b);
      yield b;
    }
  }
  const key = randomUUID();
  const stream = Readable.from(body(), { objectMode: false, highWaterMark: 1 });
  let digest: string;
  try {
    await rt.blobs.put(tenant, key, stream, type.mime);
    digest = await hash.digest();
  } catch (e) {
    hash.discard();
    source.destroy?.();
    // The port removed its temporary file; make sure no blob survives a failure after commit either.
    await rt.blobs.delete(tenant, key).catch(() => undefined);
    throw e;
  }
  return { key, size, sha512: digest, mimeType: type.mime, ext: type.ext };
}
