/**
 * Scaled BlobStore: S3-compatible object storage (AWS S3, MinIO, s3rver, ...).
 *
 * Objects are `<prefix><tenant>/<key>` in one bucket; tenants and keys follow the local adapter's
 * rules (/^[A-Za-z0-9._-]{1,200}$/, no leading dot, no `..`), so no name can reach another
 * tenant's objects. Buffers go up in one PutObject; streams through lib-storage's Upload (multipart
 * above one part, never buffered whole), which aborts the multipart upload when the body fails:
 * S3 makes an object visible only when its upload completes, so a failed write leaves the previous
 * object (or none). Reads stream the GetObject body; a `range` becomes an HTTP Range request and
 * the full size comes from Content-Range. Errors of the service become AppError('UNAVAILABLE');
 * credentials are never logged or put in error messages.
 */
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { AppError } from '@pylon/kit/errors';
import type { BlobInfo, BlobRange, BlobStore } from '@pylon/kit/ports/blobs';
import { checkContentType, checkName, DEFAULT_CONTENT_TYPE } from '../blobs/blobs.shared.js';

export interface S3BlobStoreOptions {
  bucket: string;
  /** S3-compatible endpoint (http://127.0.0.1:9000); absent: AWS for `region`. */
  endpoint?: string | undefined;
  region?: string | undefined;
  /** Both or neither; neither: the SDK's default credential chain (environment, profile, instance role). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** Bucket in the path rather than the host name (MinIO, s3rver); default: true when an endpoint is given. */
  forcePathStyle?: boolean | undefined;
  /** Prepended to every object name (e.g. `pylon/`), to share a bucket. */
  prefix?: string | undefined;
  /** Multipart part size for streamed bodies (default 8 MiB, at least 5 MiB as S3 requires). */
  partSizeBytes?: number | undefined;
}

const MIN_PART = 5 * 1024 * 1024;

interface ServiceError {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}
const statusOf = (e: unknown) => (e as ServiceError | null)?.$metadata?.httpStatusCode;
const isMissing = (e: unknown) => {
  const err = e as ServiceError | null;
  return err?.name === 'NoSuchKey' || err?.name === 'NotFound' || err?.Code === 'NoSuchKey' || statusOf(e) === 404;
};
const isInvalidRange = (e: unknown) => (e as ServiceError | null)?.name === 'InvalidRange' || statusOf(e) === 416;

/** A service or network failure, named without its details (they may carry request signatures). */
function unavailable(op: string, e: unknown): AppError {
  if (e instanceof AppError) return e;
  const name = (e as ServiceError | null)?.name ?? 'Error';
  return new AppError('UNAVAILABLE', `object storage ${op} failed (${String(name).slice(0, 60)})`);
}

/** `bytes 100-199/10000` -> 10000. */
function totalOf(contentRange: string | undefined): number | undefined {
  const m = contentRange?.match(/\/(\d+)$/);
  return m ? Number(m[1]) : undefined;
}

/** The S3 client's settings from the options (the blob store's and deleteS3Prefix's): both keys or neither. */
export function s3ClientConfig(
  options: Pick<S3BlobStoreOptions, 'region' | 'forcePathStyle' | 'endpoint' | 'accessKeyId' | 'secretAccessKey'>,
): S3ClientConfig {
  if (Boolean(options.accessKeyId) !== Boolean(options.secretAccessKey))
    throw new Error('S3 blob store: give both the access key id and the secret access key, or neither');
  return {
    region: options.region ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle ?? Boolean(options.endpoint),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.accessKeyId && options.secretAccessKey ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } } : {}),
  };
}

export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  if (!options.bucket) throw new Error('S3 blob store: a bucket is required');
  const client = new S3Client(s3ClientConfig(options));
  const bucket = options.bucket;
  const prefix = options.prefix ?? '';
  const partSize = Math.max(MIN_PART, options.partSizeBytes ?? 8 * 1024 * 1024);
  let closed = false;

  const checkOpen = () => {
    if (closed) throw new AppError('UNAVAILABLE', 'blob store is closed');
  };
  const objectKey = (tenant: string, key: string) => `${prefix}${checkName(tenant, 'tenant')}/${checkName(key, 'key')}`;

  async function head(name: string): Promise<{ size: number; contentType: string } | null> {
    try {
      const h = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: name }));
      return { size: Number(h.ContentLength ?? 0), contentType: h.ContentType ?? DEFAULT_CONTENT_TYPE };
    } catch (e) {
      if (isMissing(e)) return null;
      throw unavailable('read', e);
    }
  }

  return {
    async put(tenant, key, body, contentType): Promise<BlobInfo> {
      checkOpen();
      const name = objectKey(tenant, key);
      const type = checkContentType(contentType);
      if (Buffer.isBuffer(body)) {
        try {
          await client.send(new PutObjectCommand({ Bucket: bucket, Key: name, Body: body, ContentType: type, ContentLength: body.length }));
        } catch (e) {
          throw unavailable('write', e);
        }
        return { key, size: body.length, contentType: type };
      }
      // Counted on the way through; a failing body rejects the iteration, Upload aborts the multipart upload.
      let size = 0;
      let bodyError: unknown;
      const counted = Readable.from(
        (async function* () {
          try {
            for await (const chunk of body) {
              const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
              size += buf.length;
              yield buf;
            }
          } catch (e) {
            bodyError = e;
            throw e;
          }
        })(),
      );
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: name, Body: counted, ContentType: type },
        partSize,
        queueSize: 2,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (e) {
        if (!body.destroyed) body.destroy();
        // The body's own failure is the caller's error (e.g. an interrupted upload), not the storage's.
        if (bodyError !== undefined) throw bodyError;
        throw unavailable('write', e);
      }
      return { key, size, contentType: type };
    },

    async get(tenant, key, range?: BlobRange) {
      checkOpen();
      const name = objectKey(tenant, key);
      try {
        const r = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: name, ...(range ? { Range: `bytes=${range.start}-${range.end ?? ''}` } : {}) }),
        );
        const size = range ? (totalOf(r.ContentRange) ?? Number(r.ContentLength ?? 0)) : Number(r.ContentLength ?? 0);
        const body = r.Body instanceof Readable ? r.Body : Readable.from([]);
        return { info: { key, size, contentType: r.ContentType ?? DEFAULT_CONTENT_TYPE }, body };
      } catch (e) {
        if (isMissing(e)) return null;
        if (range && isInvalidRange(e)) {
          // A range past the end: no bytes, but the blob exists (the caller answers 416 with its size).
          const h = await head(name);
          return h ? { info: { key, ...h }, body: Readable.from([]) } : null;
        }
        throw unavailable('read', e);
      }
    },

    async delete(tenant, key) {
      checkOpen();
      const name = objectKey(tenant, key);
      // S3 deletes are idempotent: a HEAD tells whether there was something to delete.
      const existed = (await head(name)) !== null;
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: name }));
      } catch (e) {
        if (!isMissing(e)) throw unavailable('delete', e);
      }
      return existed;
    },

    async ping() {
      checkOpen();
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (e) {
        throw unavailable('ping', e);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      client.destroy();
    },
  };
}
