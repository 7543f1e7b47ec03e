/**
 * Scenario 4 (content): a 200 MB media upload (raw body, POST /media/{group_id}/{file_name})
 * through the all-in-one server into the embedded blob store, against a plain stream copy of the
 * same file on the same disk in the same run; and the process's peak RSS above idle during the
 * upload (server and client share this process, so the figure includes both).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { watchRss } from './rss.js';

const MB = 1024 * 1024;

export interface UploadFigures {
  sizeMb: number;
  copyMbs: number;
  uploadMbs: number;
  ratio: number;
  peakRssAboveIdleMb: number;
}

async function makeFile(path: string, bytes: number): Promise<void> {
  // A PDF header (accepted type) then incompressible bytes.
  const f = await open(path, 'w');
  try {
    await f.write(Buffer.from('%PDF-1.4\n'));
    const block = randomBytes(4 * MB);
    for (let written = 9; written < bytes; written += block.length) await f.write(block, 0, Math.min(block.length, bytes - written));
  } finally {
    await f.close();
  }
}

function upload(url: string, key: string, path: string, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'x-service-apikey': key, 'content-type': 'application/pdf', 'content-length': String(size) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    createReadStream(path).pipe(req);
  });
}

export async function uploadScenario(o: { baseUrl: string; key: string; dir: string; sizeMb?: number }): Promise<UploadFigures> {
  const sizeMb = o.sizeMb ?? 200;
  const size = sizeMb * MB;
  const src = join(o.dir, 'bench-upload.pdf');
  const copy = join(o.dir, 'bench-copy.pdf');
  await makeFile(src, size);

  const t0 = performance.now();
  await pipeline(createReadStream(src), createWriteStream(copy));
  const copyMbs = sizeMb / ((performance.now() - t0) / 1000);
  if ((await stat(copy)).size !== size) throw new Error('copy is short');
  await rm(copy);

  const gql = await fetch(`${o.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-apikey': o.key, 'apollo-require-preflight': 'true' },
    body: JSON.stringify({ query: 'mutation { createMediaGroup(input: { name: "Bench uploads" }) { success error group { id } } }' }),
  });
  const groupId = ((await gql.json()) as { data: { createMediaGroup: { group: { id: string } } } }).data.createMediaGroup.group.id;

  const rss = await watchRss({ everyMs: 10, settleMs: 200 });
  const t1 = performance.now();
  const status = await upload(`${o.baseUrl}/media/${groupId}/bench.pdf`, o.key, src, size);
  const uploadMbs = sizeMb / ((performance.now() - t1) / 1000);
  const { idle, peak } = rss.stop();
  await rm(src);
  if (status !== 201) throw new Error(`upload answered ${status}`);
  return { sizeMb, copyMbs, uploadMbs, ratio: uploadMbs / copyMbs, peakRssAboveIdleMb: (peak - idle) / MB };
}

export function printUpload(f: UploadFigures): void {
  console.log(`\nScenario 4: content — a ${f.sizeMb} MB upload\n`);
  console.log('| path | MB/s |\n|---|---:|');
  console.log(`| local stream copy of the same file (baseline) | ${f.copyMbs.toFixed(0)} |`);
  console.log(`| POST /media/{group_id}/{file_name} (raw body → blob store) | ${f.uploadMbs.toFixed(0)} |`);
  console.log(`\nupload / local copy: ${f.ratio.toFixed(2)}× (target ≥ 0.50×)`);
  console.log(`peak RSS above idle during the upload: ${f.peakRssAboveIdleMb.toFixed(0)} MB (target < 150 MB)`);
}
