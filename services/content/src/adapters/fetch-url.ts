/**
 * Downloads a URL for a media import without letting a caller reach our own network (SSRF).
 *
 * - Only http: and https: (file:, data:, gopher:, ... are refused before anything happens).
 * - Requests go through `request-filtering-agent`, which checks the address the name resolves to
 *   at connect time (so DNS rebinding and spellings like 2130706433, 0177.0.0.1 or [::ffff:127.0.0.1]
 *   gain nothing): private, loopback, link-local, metadata and unspecified addresses are refused.
 *   Node's global fetch ignores agents, hence node:http/https.
 * - Redirects are followed by hand, at most `importMaxRedirects`, each target checked again.
 * - One deadline for the whole download, and the size cap applies while streaming (store-file).
 * - `importAllowList` admits named addresses (on-premise sources, tests' loopback server).
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { AppError, isRefusedAddress, outboundAgents, parseOutboundUrl } from '@pylon/kit';
import type { ContentRuntime } from '../runtime.js';

export interface Download {
  body: Readable;
  /** The file name the final URL's path ends with, if any. */
  fileName: string | null;
  /** Stops the download (deadline timer and socket). */
  abort(): void;
}

const refuse = (message: string) => new AppError('BAD_USER_INPUT', message, { field: 'url' });

/** The kit's outbound rules (shared with webhook deliveries). */
const agentsFor = (rt: ContentRuntime) => outboundAgents(rt.settings.importAllowList);

export const parseImportUrl = (raw: unknown): URL => parseOutboundUrl(raw, 'url');

function fileNameOf(url: URL): string | null {
  const last = decodeURIComponent(url.pathname.split('/').pop() ?? '').trim();
  return last ? last.slice(0, 255) : null;
}

/** Opens the download; the body streams (with the deadline still running) until consumed or aborted. */
export async function openDownload(rt: ContentRuntime, raw: unknown): Promise<Download> {
  let url = parseImportUrl(raw);
  const agents = agentsFor(rt);
  let current: http.ClientRequest | undefined;
  let response: http.IncomingMessage | undefined;
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    const e = new AppError('UNPROCESSABLE', `the download did not finish within ${rt.settings.importTimeoutMs} ms`, { field: 'url' });
    response?.destroy(e);
    current?.destroy(e);
  }, rt.settings.importTimeoutMs);
  deadline.unref();
  const abort = () => {
    clearTimeout(deadline);
    current?.destroy();
    agents.destroy();
  };
  try {
    for (let hop = 0; ; hop++) {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const lib = url.protocol === 'https:' ? https : http;
        const req = lib.get(
          url,
          { agent: url.protocol === 'https:' ? agents.https : agents.http, headers: { 'user-agent': 'pylon-media-import/1', accept: '*/*' } },
          resolve,
        );
        current = req;
        req.on('error', reject);
      }).catch((e: unknown) => {
        if (timedOut || e instanceof AppError) throw e instanceof AppError ? e : refuse('the download timed out');
        if (isRefusedAddress(e)) throw refuse(`url resolves to an address imports may not reach (private, loopback, link-local or metadata)`);
        throw new AppError('UNPROCESSABLE', `the url could not be fetched (${(e as NodeJS.ErrnoException).code ?? 'network error'})`, { field: 'url' });
      });
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (hop >= rt.settings.importMaxRedirects)
          throw new AppError('UNPROCESSABLE', `more than ${rt.settings.importMaxRedirects} redirects`, { field: 'url' });
        let next: URL;
        try {
          next = new URL(res.headers.location, url);
        } catch {
          throw new AppError('UNPROCESSABLE', 'the url redirects to an invalid address', { field: 'url' });
        }
        url = parseImportUrl(next.href);
        continue;
      }
      if (status !== 200) {
        res.resume();
        throw new AppError('UNPROCESSABLE', `the url answered HTTP ${status}`, { field: 'url' });
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > rt.settings.maxUploadBytes) {
        res.destroy();
        throw new AppError('PAYLOAD_TOO_LARGE', `the file is larger than the ${rt.settings.maxUploadBytes} bytes allowed`, { field: 'url' });
      }
      response = res;
      res.on('close', () => clearTimeout(deadline));
      return { body: res, fileName: fileNameOf(url), abort };
    }
  } catch (e) {
    abort();
    throw e;
  }
}
