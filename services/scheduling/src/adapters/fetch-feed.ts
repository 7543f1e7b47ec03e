/**
 * Downloads a CAP feed document under the kit's outbound rules (SSRF: private, loopback and
 * metadata addresses refused at connect time unless the allow-list names them): at most 1 MiB, one
 * deadline for the whole download, at most 3 redirects (each target checked again).
 */
import http from 'node:http';
import https from 'node:https';
import { AppError, isRefusedAddress, outboundAgents, parseOutboundUrl } from '@pylon/kit';

export const MAX_FEED_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 3;

export interface FeedFetchOptions {
  allowList: readonly string[];
  timeoutMs: number;
}

const failed = (message: string) => new AppError('UNPROCESSABLE', message, { field: 'url' });

/** The document's text, or UNPROCESSABLE naming what went wrong (status, size, deadline, refused address). */
export async function fetchFeed(raw: string, opts: FeedFetchOptions): Promise<string> {
  let url = parseOutboundUrl(raw, 'url');
  const agents = outboundAgents(opts.allowList);
  const deadline = Date.now() + opts.timeoutMs;
  try {
    for (let hop = 0; ; hop++) {
      const r = await getOnce(url, agents, deadline - Date.now());
      if ('location' in r) {
        if (hop >= MAX_REDIRECTS) throw failed(`the feed redirected more than ${MAX_REDIRECTS} times`);
        url = parseOutboundUrl(new URL(r.location, url).toString(), 'url');
        continue;
      }
      return r.body;
    }
  } catch (e) {
    if (isRefusedAddress(e)) throw failed(`the feed's address ${url.hostname.slice(0, 100)} is private or reserved (allow it with CAP_FEED_ALLOW_LIST)`);
    throw e instanceof AppError ? e : failed(`the feed could not be read: ${(e as Error).message.slice(0, 200)}`);
  } finally {
    agents.destroy();
  }
}

function getOnce(url: URL, agents: ReturnType<typeof outboundAgents>, timeoutMs: number): Promise<{ body: string } | { location: string }> {
  return new Promise((resolve, reject) => {
    if (timeoutMs <= 0) return reject(failed('the feed did not answer in time'));
    const client = url.protocol === 'https:' ? https : http;
    const req = client.get(
      url,
      { agent: url.protocol === 'https:' ? agents.https : agents.http, headers: { accept: 'application/xml, text/xml, */*' } },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          return resolve({ location: res.headers.location });
        }
        if (status !== 200) {
          res.resume();
          return reject(failed(`the feed answered HTTP ${status}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_FEED_BYTES) {
            req.destroy();
            reject(failed(`the feed is larger than ${MAX_FEED_BYTES} bytes`));
          } else chunks.push(c);
        });
        res.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(failed('the feed did not answer in time')));
    req.on('error', reject);
  });
}
