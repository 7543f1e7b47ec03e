/**
 * Scenario 4 (content): a 200 MB media upload (raw body, POST /media/{group_id}/{file_name})
 * through the all-in-one server into the embedded blob store, against a plain stream copy of the
 * same file on the same disk, in interleaved rounds (copy, floor, upload, copy, ...: all see the
 * same page cache and the same neighbours); the ratio is the median round's, printed with its spread
 * (issue 39: a target is met when the spread's low end meets it); and the server process's peak RSS
 * above idle during the uploads (the client is a child process, as the other scenarios' clients are).
 *
 * The second line is the physical floor of the same work in Node on this machine: a bare node:http
 * server that takes the same body from the same client, hashes it (SHA-512, which the media record
 * carries, on a worker thread as the product does: @pylon/kit/sha512), writes it to a file and fsyncs
 * it (as the blob store does) before it answers, the fastest simple way (batched writes, flushed as
 * they arrive): none of the product's routing, authentication, type probing or records.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { sha512 } from '@pylon/kit/sha512';
import { watchRss } from './rss.js';

const MB = 1024 * 1024;

export interface UploadFigures {
  sizeMb: number;
  /** Of the round with the median ratio. */
  copyMbs: number;
  uploadMbs: number;
  ratio: number;
  /** Every round's upload / copy, in the order run. */
  rounds: number[];
  /** Every round's MB/s, in the order run. */
  roundsMbs: { copy: number; floor: number; upload: number }[];
  /** The bare node:http floor (hash, write, fsync), of the same round. */
  floorMbs: number;
  /** The median over the rounds of upload / floor. */
  uploadOverFloor: number;
  peakRssAboveIdleMb: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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

/**
 * The uploading client, in a child process as another machine's client would be: its file reads and
 * socket writes run beside the server, not on the server's event loop (the other scenarios' clients
 * are child processes too: child-http-client.ts). It starts, then waits for a line on stdin, sends
 * the file with one `http.request` and prints the answer's status and the milliseconds it took.
 * It reads its file 1 MiB at a time: at the stream default of 64 KB it spent a whole core on its own
 * reads and writes (430 ms of CPU per 200 MB on 2026-11-30), which on a 2-core machine capped even a
 * server that discards the body at ~480 MB/s; a client on another machine costs the server nothing.
 */
const UPLOADER = `
const http = require('node:http');
const fs = require('node:fs');
const { url, key, path, size } = JSON.parse(process.argv[1]);
process.stdin.once('data', () => {
  const t = performance.now();
  const req = http.request(url, { method: 'POST', headers: { 'x-service-apikey': key, 'content-type': 'application/pdf', 'content-length': String(size) } }, (res) => {
    res.resume();
    res.on('end', () => { process.stdout.write(JSON.stringify({ status: res.statusCode, ms: performance.now() - t }) + '\\n'); process.exit(0); });
  });
  req.on('error', (e) => { process.stdout.write(JSON.stringify({ error: String(e) }) + '\\n'); process.exit(1); });
  fs.createReadStream(path, { highWaterMark: 1 << 20 }).pipe(req);
});
process.stdout.write('ready\\n');
`;

/** Starts the uploading client; `send()` uploads once and answers the status and the milliseconds from its first byte read to the answer's end. */
async function uploader(url: string, key: string, path: string, size: number): Promise<{ send(): Promise<{ status: number; ms: number }> }> {
  const child = spawn(process.execPath, ['-e', UPLOADER, JSON.stringify({ url, key, path, size })], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error('the uploading client exited');
    return r.value;
  };
  if ((await next()) !== 'ready') throw new Error('the uploading client did not start');
  return {
    async send() {
      child.stdin.end('go\n');
      const answer = JSON.parse(await next()) as { status: number; ms: number; error?: string };
      if (answer.error) throw new Error(`upload failed: ${answer.error}`);
      return answer;
    },
  };
}

/**
 * Flushes a file written before the rounds (untimed): its writeback would otherwise land in the middle
 * of a round (the kernel writes dirty pages back ~30 s later, or when enough pile up).
 */
async function synced(path: string): Promise<void> {
  const f = await open(path, 'r+');
  try {
    await f.sync();
  } finally {
    await f.close();
  }
}

/** A plain stream copy of `src` on the same disk, removed after (it never reached the disk): MB/s. */
async function copyMbs(src: string, copy: string, size: number): Promise<number> {
  const t0 = performance.now();
  await pipeline(createReadStream(src), createWriteStream(copy));
  const mbs = size / MB / ((performance.now() - t0) / 1000);
  if ((await stat(copy)).size !== size) throw new Error('copy is short');
  await rm(copy);
  return mbs;
}

/**
 * The body into `path` the fastest simple way: SHA-512 over each chunk (off the event loop), the chunks written in 1 MiB
 * `writev`s (one in flight), the data flushed every 16 MiB while it arrives, fsync at the end.
 */
async function storeBody(req: AsyncIterable<Buffer>, path: string): Promise<string> {
  const hash = sha512();
  const f = await open(path, 'w');
  let write: Promise<unknown> = Promise.resolve();
  let flush: Promise<unknown> = Promise.resolve();
  try {
    let batch: Buffer[] = [];
    let bytes = 0;
    let unflushed = 0;
    for await (const chunk of req) {
      await hash.update(chunk);
      batch.push(chunk);
      bytes += chunk.length;
      if (bytes < MB) continue;
      await write;
      write = f.writev(batch);
      write.catch(() => undefined); // awaited below; failing meanwhile is not an unhandled rejection
      [batch, unflushed, bytes] = [[], unflushed + bytes, 0];
      if (unflushed >= 16 * MB) {
        await flush;
        const written = write;
        flush = written.then(() => f.datasync());
        flush.catch(() => undefined);
        unflushed = 0;
      }
    }
    await write;
    await f.writev(batch);
    await flush;
    await f.sync();
    return await hash.digest();
  } finally {
    hash.discard();
    // A client gone mid-body: the write and the flush still running end before the file closes.
    await Promise.allSettled([write, flush]);
    await f.close();
  }
}

/** The floor: a bare node:http server storing the body as the product must (SHA-512, a file, fsync), as fast as it simply can. */
async function bareUploadServer(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  // Every body in a file of its own, kept until close() (see `uploadScenario`).
  const files: string[] = [];
  const server = createServer((req, res) => {
    const path = join(dir, `bench-floor-${files.length}.bin`);
    files.push(path);
    storeBody(req, path).then(
      (sha512) => res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sha512 })),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    async close() {
      await new Promise<void>((r) => server.close(() => r()).closeAllConnections());
      await Promise.all(files.map((f) => rm(f, { force: true })));
    },
  };
}

export async function uploadScenario(o: { baseUrl: string; key: string; dir: string; sizeMb?: number; rounds?: number }): Promise<UploadFigures> {
  const sizeMb = o.sizeMb ?? 200;
  const size = sizeMb * MB;
  const src = join(o.dir, 'bench-upload.pdf');
  await makeFile(src, size);
  await synced(src);

  const gql = await fetch(`${o.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-apikey': o.key, 'apollo-require-preflight': 'true' },
    body: JSON.stringify({ query: 'mutation { createMediaGroup(input: { name: "Bench uploads" }) { success error group { id } } }' }),
  });
  const groupId = ((await gql.json()) as { data: { createMediaGroup: { group: { id: string } } } }).data.createMediaGroup.group.id;

  // No file that reached the disk is removed before the last round: this machine's root filesystem is
  // mounted with `discard`, so a 200 MB file removed between two steps is trimmed at the next journal
  // commit, which the next step's fsync then waits for. The floor's files and the uploaded blobs stay
  // until the scenario ends; a copy (never synced) is removed at once, before the kernel writes it back.
  const floor = await bareUploadServer(o.dir);
  const rounds: { copyMbs: number; floorMbs: number; uploadMbs: number; ratio: number }[] = [];
  let peakAboveIdle = 0;
  try {
    for (let r = 0; r < (o.rounds ?? 3); r++) {
      const copy = await copyMbs(src, join(o.dir, 'bench-copy.pdf'), size);
      const bare = await (await uploader(floor.url, o.key, src, size)).send();
      if (bare.status !== 201) throw new Error(`the floor answered ${bare.status}`);
      const client = await uploader(`${o.baseUrl}/media/${groupId}/bench-${r}.pdf`, o.key, src, size);
      const rss = await watchRss({ everyMs: 10, settleMs: 200 });
      // Stopped on a failed send too (its timer keeps the process alive); stop() answers the same figures again.
      const { status, ms } = await client.send().finally(() => rss.stop());
      const seen = rss.stop();
      if (status !== 201) throw new Error(`upload answered ${status}`);
      peakAboveIdle = Math.max(peakAboveIdle, seen.peak - seen.idle);
      const uploadMbs = sizeMb / (ms / 1000);
      rounds.push({ copyMbs: copy, floorMbs: sizeMb / (bare.ms / 1000), uploadMbs, ratio: uploadMbs / copy });
    }
  } finally {
    // A failed round leaves neither the floor listening nor the 200 MB files on the disk.
    await floor.close();
    await rm(src, { force: true });
  }
  const mid = rounds.find((r) => r.ratio === median(rounds.map((x) => x.ratio)))!;
  return {
    sizeMb,
    ...mid,
    rounds: rounds.map((r) => r.ratio),
    roundsMbs: rounds.map((r) => ({ copy: Math.round(r.copyMbs), floor: Math.round(r.floorMbs), upload: Math.round(r.uploadMbs) })),
    uploadOverFloor: median(rounds.map((r) => r.uploadMbs / r.floorMbs)),
    peakRssAboveIdleMb: peakAboveIdle / MB,
  };
}

export function printUpload(f: UploadFigures): void {
  const low = Math.min(...f.rounds);
  const met = low >= 0.5 ? 'met' : f.ratio >= 0.5 ? 'the median meets it, the low end does not' : 'not met';
  console.log(
    `\nScenario 4: content — a ${f.sizeMb} MB upload (${f.rounds.length} interleaved round${f.rounds.length === 1 ? '' : 's'}; the round with the median ratio)\n`,
  );
  console.log('| path | MB/s |\n|---|---:|');
  console.log(`| local stream copy of the same file (baseline) | ${f.copyMbs.toFixed(0)} |`);
  console.log(`| floor: a bare node:http server, the same client: SHA-512, a file, fsync | ${f.floorMbs.toFixed(0)} |`);
  console.log(`| POST /media/{group_id}/{file_name} (raw body → blob store) | ${f.uploadMbs.toFixed(0)} |`);
  console.log(`\nupload / local copy: ${f.ratio.toFixed(2)}× (rounds ${low.toFixed(2)}-${Math.max(...f.rounds).toFixed(2)}; target ≥ 0.50×: ${met})`);
  console.log(`rounds in the order run, MB/s (copy / floor / upload): ${f.roundsMbs.map((r) => `${r.copy} / ${r.floor} / ${r.upload}`).join('; ')}`);
  console.log(`upload / the bare node:http floor: ${f.uploadOverFloor.toFixed(2)}× (median of the rounds)`);
  console.log(`peak RSS above idle during the upload: ${f.peakRssAboveIdleMb.toFixed(0)} MB (target < 150 MB)`);
}
