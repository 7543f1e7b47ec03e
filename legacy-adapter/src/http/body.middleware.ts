/**
 * Request bodies: JSON (`application/json`) or XML (`application/xml`, `text/xml`), UTF-8, at
 * most `maxBytes` after decompression. The content type is checked before a byte is read (415);
 * the size cap is enforced while reading (413, at once when Content-Length already says so).
 * The parsed body lands in `res.locals.body` (and the XML root element in `res.locals.bodyRoot`).
 */
import type { NextFunction, Request, Response } from 'express';
import express from 'express';
import { AppError } from '@pylon/kit';
import { parseJsonBody } from '../body/json.parser.js';
import { parseXmlBody } from '../body/xml.parser.js';

const JSON_TYPES = new Set(['application/json']);
const XML_TYPES = new Set(['application/xml', 'text/xml']);

const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

function mediaType(req: Request): { type: string; charset?: string } {
  const [type = '', ...params] = (req.headers['content-type'] ?? '').split(';');
  const charset = params
    .map((p) => p.trim().toLowerCase())
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  return { type: type.trim().toLowerCase(), ...(charset ? { charset } : {}) };
}

export function bodyParsing(opts: { maxBytes: number; maxDepth?: number }) {
  const raw = express.raw({ type: () => true, limit: opts.maxBytes });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' || !hasBody(req)) return next();
    const { type, charset } = mediaType(req);
    const isJson = JSON_TYPES.has(type);
    if (!isJson && !XML_TYPES.has(type))
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'request bodies must be application/json, application/xml or text/xml'));
    if (charset && charset !== 'utf-8' && charset !== 'utf8') return next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'request bodies must be UTF-8'));
    raw(req, res, (err?: unknown) => {
      if (err) return next(err);
      try {
        // A UTF-8 byte order mark is allowed in both formats and means nothing.
        const text = (Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '').replace(/^\uFEFF/, '');
        if (isJson) {
          res.locals.body = parseJsonBody(text, opts);
        } else {
          const xml = parseXmlBody(text, opts);
          res.locals.body = xml.value;
          res.locals.bodyRoot = xml.root;
        }
        // Routes read the parsed, checked body only.
        req.body = undefined;
        next();
      } catch (e) {
        next(e);
      }
    });
  };
}
