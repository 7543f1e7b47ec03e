/**
 * The body of a batch request (POST /player/{key}/playlogs|events|impressions) read without
 * body-parser's general machinery when it is the common case: `Content-Type: application/json`
 * (utf-8 or no charset), no Content-Encoding, a Content-Length within the limit. Anything else
 * (compressed, chunked, other charsets, over the limit) goes to `fallback` (express.json with the
 * same limit), so every refusal reads as before. The result is the same as body-parser's in strict
 * mode: an empty body is `{}`, a body that does not start with `{` or `[` or is not JSON fails
 * with `type: 'entity.parse.failed'` (status 400).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

const PLAIN_JSON = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;

/** As body-parser refuses a body: with the text, so the answer can name where it stops being JSON. */
const parseFailed = (message: string, text: string) =>
  Object.assign(new SyntaxError(message), { type: 'entity.parse.failed', status: 400, statusCode: 400, expose: true, body: text });

export function batchBody(limit: number, fallback: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const type = req.headers['content-type'];
    const length = Number(req.headers['content-length']);
    if (
      req.headers['content-encoding'] !== undefined ||
      req.headers['transfer-encoding'] !== undefined ||
      typeof type !== 'string' ||
      !PLAIN_JSON.test(type) ||
      !Number.isSafeInteger(length) ||
      length > limit
    )
      return fallback(req, res, next);
    // Node's parser delivers at most Content-Length bytes, most often in one chunk: then it is the body, not copied.
    const chunks: Buffer[] = [];
    let at = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      at += chunk.length;
    });
    req.once('error', next);
    req.once('end', () => {
      if (at !== length) return next(Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 }));
      let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, at)).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length === 0) {
        req.body = {};
        return next();
      }
      const first = text[0] === '[' || text[0] === '{' ? text[0] : text.trimStart()[0];
      if (first !== '{' && first !== '[') return next(parseFailed('the body is not a JSON object or array', text));
      try {
        req.body = JSON.parse(text) as unknown;
      } catch (e) {
        return next(parseFailed((e as Error).message, text));
      }
      next();
    });
  };
}
