/**
 * An HTTP client in a child process, as a BI tool or an app would call the service: its request
 * building and response parsing run beside the server, not on the server's event loop, so what a
 * scenario times is the server's answer as a client sees it. One client per request body (null:
 * a GET of the URL, as a REST client reads); `run(n)` sends n sequential requests on one kept-alive
 * connection and answers the wall time of each (ms); an answer that is not a 200 without `"errors"` rejects.
 */
import { spawn } from 'node:child_process';

const CLIENT = `
const { url, body, key } = JSON.parse(process.argv[1]);
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const payload = body === null ? null : Buffer.from(body);
const headers = payload ? { 'content-type': 'application/json', 'content-length': payload.length, 'x-service-apikey': key } : { 'x-service-apikey': key };
// A kept-alive socket the server closed between runs: one retry on a fresh socket.
const one = () => once1().catch((e) => (e.code === 'ECONNRESET' ? once1() : Promise.reject(e)));
const once1 = () => new Promise((resolve, reject) => {
  const t = performance.now();
  const req = http.request(url, { method: payload ? 'POST' : 'GET', agent, headers }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      JSON.parse(text);
      if (res.statusCode !== 200 || text.includes('"errors"')) reject(new Error(res.statusCode + ' ' + text.slice(0, 300)));
      else resolve(performance.now() - t);
    });
  });
  req.on('error', reject);
  req.end(payload ?? undefined);
});
process.stdin.setEncoding('utf8');
let buf = '';
process.stdin.on('data', async (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const count = Number(buf.slice(0, i)); buf = buf.slice(i + 1);
    if (!count) { process.exit(0); }
    const lat = [];
    try { for (let k = 0; k < count; k++) lat.push(await one()); process.stdout.write(JSON.stringify(lat) + '\\n'); }
    catch (e) { process.stdout.write(JSON.stringify({ error: String(e) }) + '\\n'); }
  }
});
`;

export interface ChildHttpClient {
  /** Sends `n` sequential requests; their wall times in ms. */
  run(n: number): Promise<number[]>;
  close(): void;
}

export function childHttpClient(url: string, key: string, body: unknown): ChildHttpClient {
  const child = spawn(process.execPath, ['-e', CLIENT, JSON.stringify({ url, body: body === null ? null : JSON.stringify(body), key })], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdout.setEncoding('utf8');
  let buf = '';
  const waiting: { resolve: (v: number[]) => void; reject: (e: Error) => void }[] = [];
  child.stdout.on('data', (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = JSON.parse(buf.slice(0, i)) as number[] | { error: string };
      buf = buf.slice(i + 1);
      const w = waiting.shift()!;
      if (Array.isArray(line)) w.resolve(line);
      else w.reject(new Error(`HTTP client: ${line.error}`));
    }
  });
  return {
    run: (n) =>
      new Promise<number[]>((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${n}\n`);
      }),
    close: () => {
      child.stdin.write('0\n');
    },
  };
}
