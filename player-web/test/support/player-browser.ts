/**
 * What the web player's browser tests share: solid-colour PNGs, an API client for the all-in-one
 * under test (the bootstrap key), and a poll with a stated limit.
 */
import { crc32, deflateSync } from 'node:zlib';

export type Json = Record<string, any>;

/** A solid-colour PNG (no image library needed). */
export function png(rgb: [number, number, number], w = 160, h = 90): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** GraphQL and REST with `key`, against the base URL `base()` answers (known once the server runs). */
export function apiClient(base: () => string, key: string) {
  return {
    async gql(query: string, variables: Record<string, unknown> = {}): Promise<Json> {
      const res = await fetch(`${base()}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-apikey': key },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as Json;
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      return body.data;
    },
    async rest(method: string, path: string, body?: unknown, type = 'application/json'): Promise<{ status: number; body: any }> {
      const init: RequestInit = { method, headers: { 'x-service-apikey': key } };
      if (body !== undefined) {
        init.headers = { 'x-service-apikey': key, 'content-type': type };
        init.body = Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body);
      }
      const res = await fetch(base() + path, init);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
  };
}

/** Polls `probe` until it answers something truthy, for at most `timeoutMs`; the error names what and the last answer. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${String(last)})`);
}

/** Chromium's flags for a headless screen in a container. */
export const SCREEN_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
