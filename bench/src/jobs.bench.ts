/** What the import and export job benchmarks share: the streamed multipart upload and the memory readings. */
import { createReadStream, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';

/** POSTs a file as multipart/form-data (field `file`), streamed from disk with its content-length; resolves with the status and the JSON answer. */
export async function uploadMultipart(
  url: URL,
  headers: Record<string, string>,
  path: string,
  file: { filename: string; contentType: string },
): Promise<{ status: number; body: unknown }> {
  const boundary = `----pylon${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = (await stat(path)).size;
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + size + tail.length) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) as unknown }));
      },
    );
    req.on('error', reject);
    req.write(head);
    const f = createReadStream(path);
    f.pipe(req, { end: false });
    f.on('end', () => req.end(tail));
  });
}

/**
 * Resident memory from /proc (Linux): anonymous (heap, buffers, native allocations: what the job
 * itself holds) and file-backed (LMDB maps its data file, so pages of the store it touches count in
 * RSS; page cache the kernel reclaims, not memory the process allocated), and the JS heap.
 */
function resident(): { anon: number; file: number; total: number; heap: number } {
  const s = readFileSync('/proc/self/status', 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? 0) * 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile'), total: kb('VmRSS'), heap: process.memoryUsage().heapUsed };
}

const mb = (n: number) => Math.round(n / 1024 / 1024);

/** Reads memory now (idle), then every 50 ms until stop(), which gives the peaks above idle in MB. */
export function sampleMemory() {
  const idle = resident();
  const peak = { ...idle };
  const timer = setInterval(() => {
    const m = resident();
    for (const k of ['anon', 'file', 'total', 'heap'] as const) peak[k] = Math.max(peak[k], m[k]);
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return {
        idleRssMb: mb(idle.total),
        peakRssAboveIdleMb: mb(peak.total - idle.total),
        peakAnonAboveIdleMb: mb(peak.anon - idle.anon),
        peakFileAboveIdleMb: mb(peak.file - idle.file),
        peakHeapAboveIdleMb: mb(peak.heap - idle.heap),
      };
    },
  };
}
