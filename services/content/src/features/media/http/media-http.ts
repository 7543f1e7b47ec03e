/**
 * Media over plain HTTP: uploads (not GraphQL: the bytes must stream, never be buffered) and
 * the files themselves. The composition root mounts this router in front of the REST facade and
 * tells it how to authenticate the caller: the edge's API key / bearer check in the all-in-one
 * process; the signed internal token when the content subgraph runs as its own process behind
 * a proxying edge. Either way the request body is piped straight into the blob port.
 *
 *   POST /media                            multipart/form-data: file, name, group_id, tags, start_date, end_date
 *   POST /media/{group_id}/{file_name}     raw body; ?name=&description=(tags)&start_date=&end_date=
 *   GET  /content/files/{account}/{key}    signed, expiring (fileUrl / thumbnailUrl); Range, ETag, Cache-Control
 *
 * Upload answers: 201 with the reference's Media body; errors as the REST facade's
 * { "error": { "code", "message", "field"?, "request_id"? } } with kit's statuses (413 too
 * large, 415 refused type).
 */
import busboy from 'busboy';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { PassThrough, type Readable } from 'node:stream';
import { AppError, authedRoutes, isAppError, requireRule, sendRestError, type AuthedHandler, type Principal } from '@pylon/kit';
import type { ContentRuntime } from '../../../runtime.js';
import { addMedia, type NewMediaMeta } from '../add-media.js';
import { FILES_PATH } from '../../../shared/file-urls.js';
import { restMedia, tagsOf } from './media-rest.js';

export interface MediaHttpOptions {
  /** The caller, or null when the request carries no valid credentials (401). */
  authenticate(req: Request): Promise<Principal | null>;
}

/** Form fields of the reference's multipart upload that we read (others are ignored as the reference's extras). */
const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 10_000;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Reference form / query names to the use case's metadata. */
function metaFrom(fields: Record<string, unknown>, extra: Partial<NewMediaMeta> = {}): NewMediaMeta {
  const tags = tagsOf(fields.tags ?? fields.description);
  const name = str(fields.name);
  const groupId = str(fields.group_id);
  const startDate = str(fields.start_date);
  const endDate = str(fields.end_date);
  return {
    ...(name ? { name } : {}),
    ...(groupId ? { groupId } : {}),
    ...(tags ? { tags } : {}),
    ...(startDate ? { startDate } : {}),
    ...(endDate ? { endDate } : {}),
    ...extra,
  };
}

/** Parses a multipart upload, handing the file part to addMedia as a stream as soon as it starts. */
function multipartUpload(rt: ContentRuntime, principal: Principal, req: Request): Promise<ReturnType<typeof restMedia>> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        limits: { files: 1, fields: MAX_FIELDS, parts: MAX_FIELDS + 1, fieldSize: MAX_FIELD_BYTES, fileSize: rt.settings.maxUploadBytes + 1 },
      });
    } catch {
      return reject(new AppError('BAD_USER_INPUT', 'the body must be multipart/form-data with a file part', { field: 'file' }));
    }
    const fields: Record<string, string> = {};
    let formDone!: () => void;
    let formFailed!: (e: Error) => void;
    const formRead = new Promise<void>((res, rej) => {
      formDone = res;
      formFailed = rej;
    });
    formRead.catch(() => undefined);
    let upload: Promise<unknown> | null = null;
    let failed = false;
    const fail = (e: Error) => {
      if (failed) return;
      failed = true;
      formFailed(e);
      req.unpipe(bb);
      req.resume();
      reject(e);
    };
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated)
        return fail(new AppError('PAYLOAD_TOO_LARGE', `form field ${name.slice(0, 50)} is longer than ${MAX_FIELD_BYTES} bytes`, { field: name.slice(0, 50) }));
      fields[name] = value;
    });
    bb.on('file', (name, stream: Readable & { truncated?: boolean }, info) => {
      if (name !== 'file') {
        stream.resume();
        return fail(new AppError('BAD_USER_INPUT', `unexpected file part '${name.slice(0, 50)}'; send the file as 'file'`, { field: name.slice(0, 50) }));
      }
      stream.on('limit', () =>
        stream.destroy(new AppError('PAYLOAD_TOO_LARGE', `the file is larger than the ${rt.settings.maxUploadBytes} bytes allowed`, { field: 'file' })),
      );
      upload = addMedia(rt, principal, stream, async () => {
        await formRead;
        return metaFrom(fields, info.filename ? { fileName: info.filename } : {});
      });
      upload.then((m) => resolve(restMedia(rt, m as Parameters<typeof restMedia>[1])), fail);
    });
    bb.on('partsLimit', () => fail(new AppError('PAYLOAD_TOO_LARGE', `too many form parts (at most ${MAX_FIELDS + 1})`, { field: 'file' })));
    bb.on('filesLimit', () => fail(new AppError('BAD_USER_INPUT', 'send exactly one file', { field: 'file' })));
    bb.on('fieldsLimit', () => fail(new AppError('PAYLOAD_TOO_LARGE', `too many form fields (at most ${MAX_FIELDS})`, { field: 'file' })));
    bb.on('error', (e) => fail(new AppError('BAD_USER_INPUT', `malformed multipart body: ${(e as Error).message.slice(0, 100)}`, { field: 'file' })));
    bb.on('close', () => {
      formDone();
      if (!upload) fail(new AppError('BAD_USER_INPUT', 'file is required', { field: 'file' }));
    });
    // A client that goes away mid-upload ends the file stream with an error: nothing is kept.
    req.on('aborted', () => fail(new AppError('BAD_USER_INPUT', 'the upload was interrupted', { field: 'file' })));
    req.pipe(bb);
  });
}

export function createMediaHttp(rt: ContentRuntime, o: MediaHttpOptions): Router {
  const router = express.Router();

  // Uploads need Files_Edit; a refused upload is answered at once and its body not read (it can be large).
  const route = authedRoutes({ authenticate: o.authenticate, logger: rt.logger, what: 'media upload', cutUnreadBodyAbove: 0 });
  const authed = (h: AuthedHandler) =>
    route((req, res, principal) => {
      requireRule(principal, 'Files_Edit');
      return h(req, res, principal);
    });

  router.post(
    '/media',
    authed(async (req, res, principal) => {
      if (!req.is('multipart/form-data')) {
        req.resume();
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'POST /media takes multipart/form-data (or POST /media/{group_id}/{file_name} with the raw file)', {
          field: 'file',
        });
      }
      res.status(201).json(await multipartUpload(rt, principal, req));
    }),
  );

  router.post(
    '/media/:group_id/:file_name',
    authed(async (req, res, principal) => {
      const declared = Number(req.get('content-length'));
      if (Number.isFinite(declared) && declared > rt.settings.maxUploadBytes) {
        req.resume();
        throw new AppError('PAYLOAD_TOO_LARGE', `the file is larger than the ${rt.settings.maxUploadBytes} bytes allowed`, { field: 'file' });
      }
      const q = req.query as Record<string, unknown>;
      const meta = metaFrom({ ...q, group_id: req.params.group_id }, { fileName: String(req.params.file_name) });
      // The body goes through a PassThrough so a refusal (415, 413) stops reading without killing the
      // socket before the answer is sent, and a client that goes away fails the stream (nothing is kept).
      const body = new PassThrough();
      const cut = () => body.destroy(new AppError('BAD_USER_INPUT', 'the upload was interrupted', { field: 'file' }));
      req.on('aborted', cut);
      req.on('error', cut);
      req.pipe(body);
      const media = await addMedia(rt, principal, body, meta);
      res.status(201).json(restMedia(rt, media));
    }),
  );

  router.get(`${FILES_PATH}/:account/:key`, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const account = String(req.params.account);
      const key = String(req.params.key);
      const left = rt.urls.verify(account, key, req.query.expires, req.query.signature);
      if (left === null) return sendRestError(res, 'FORBIDDEN', 'this file address is invalid or has expired; read fileUrl again');
      const range = parseRange(req.get('range'));
      const head = await rt.blobs.get(account, key, range ?? undefined);
      if (!head) return sendRestError(res, 'NOT_FOUND', 'file not found');
      const { info, body } = head;
      // Keys are never rewritten: the key and size identify the bytes.
      const etag = `"${key}-${info.size}"`;
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', `private, max-age=${Math.min(left, 86_400)}, immutable`);
      res.setHeader('Accept-Ranges', 'bytes');
      res.setHeader('Content-Type', info.contentType);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
      if (req.get('if-none-match') === etag) {
        body.destroy();
        return void res.status(304).end();
      }
      if (range) {
        const end = Math.min(range.end ?? info.size - 1, info.size - 1);
        if (range.start >= info.size || end < range.start) {
          body.destroy();
          res.setHeader('Content-Range', `bytes */${info.size}`);
          return void res.status(416).end();
        }
        res.status(206);
        res.setHeader('Content-Range', `bytes ${range.start}-${end}/${info.size}`);
        res.setHeader('Content-Length', String(end - range.start + 1));
      } else {
        res.setHeader('Content-Length', String(info.size));
      }
      if (req.method === 'HEAD') return void (body.destroy(), res.end());
      body.on('error', (e) => res.destroy(e));
      res.on('close', () => body.destroy());
      body.pipe(res);
    } catch (e) {
      if (isAppError(e)) return sendRestError(res, e.code, e.message);
      next(e);
    }
  });

  return router;
}

/** One `bytes=start-end` / `bytes=start-` / `bytes=-suffix` range; anything else serves the whole file. */
function parseRange(header: string | undefined): { start: number; end?: number } | null {
  const m = header?.match(/^bytes=(\d{0,15})-(\d{0,15})$/);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  // Suffix ranges (bytes=-n) are rare for media players; they get the whole file.
  if (m[1] === '') return null;
  return m[2] === '' ? { start: Number(m[1]) } : { start: Number(m[1]), end: Number(m[2]) };
}
