/**
 * SHA-512 of an upload on a worker thread, so that the digest of a large file runs on another core
 * while the main thread receives the body and writes the blob (issue 39: on a 200 MB upload the
 * hash alone took ~0.26 s of the main thread, about as long as the socket reads and file writes).
 *
 * Bytes are gathered into 1 MiB batches, each a fresh buffer handed over to the worker (transferred,
 * not cloned). An upload that ends before its first batch fills is hashed in place and never talks to
 * the worker, so small files pay nothing for it. At most `MAX_BATCHES_IN_FLIGHT` batches wait for the
 * worker: past that, `update` returns a promise and the upload waits, which bounds the memory a fast
 * sender can pin to 8 MiB per upload.
 *
 * One worker per process, started on the first large upload and unref'd while it has no work; it
 * hashes ~770 MB/s on the machines of BENCHMARKS.md, more than a 5 Gbit/s link delivers. If it dies,
 * the uploads it was hashing fail (and store nothing); the next upload starts a new one.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

const BATCH_BYTES = 1 << 20;
const MAX_BATCHES_IN_FLIGHT = 8;

/** CommonJS, run with `eval`: no file to resolve, so it works from sources, from dist/ and in the read-only image alike. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const jobs = new Map();
parentPort.on('message', (m) => {
  if (m.data) {
    let h = jobs.get(m.id);
    if (!h) jobs.set(m.id, (h = createHash('sha512')));
    h.update(m.data);
    parentPort.postMessage({ id: m.id, spare: m.data.buffer }, [m.data.buffer]);
    return;
  }
  const h = jobs.get(m.id) ?? createHash('sha512');
  jobs.delete(m.id);
  if (!m.drop) parentPort.postMessage({ id: m.id, digest: h.digest('hex') });
});
`;

interface Job {
  inFlight: number;
  /** Callers told to wait; woken once fewer than MAX_BATCHES_IN_FLIGHT batches are left. */
  waiting: (() => void)[];
  done?: { resolve: (hex: string) => void; reject: (e: Error) => void };
  failed?: Error;
}

interface Reply {
  id: number;
  digest?: string;
  /** A hashed batch's memory, handed back to be filled again. */
  spare?: ArrayBuffer;
}

/** Batches handed back by the worker: reused, so a large upload allocates a handful of buffers, not one per MiB. */
const spares: ArrayBuffer[] = [];
const MAX_SPARES = MAX_BATCHES_IN_FLIGHT + 2;
const batchBuffer = (): Buffer => {
  const spare = spares.pop();
  return spare ? Buffer.from(spare) : Buffer.allocUnsafeSlow(BATCH_BYTES);
};

let worker: Worker | undefined;
const jobs = new Map<number, Job>();
let nextId = 1;

function failAll(e: Error): void {
  worker = undefined;
  for (const job of jobs.values()) {
    job.failed = e;
    for (const wake of job.waiting.splice(0)) wake();
    job.done?.reject(e);
  }
  jobs.clear();
}

function hashingWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true, name: 'pylon-sha512' });
  w.on('message', (m: Reply) => {
    const job = jobs.get(m.id);
    if (!job) {
      if (m.spare && spares.length < MAX_SPARES) spares.push(m.spare);
      return;
    }
    if (m.digest !== undefined) {
      jobs.delete(m.id);
      if (jobs.size === 0) w.unref();
      job.done?.resolve(m.digest);
      return;
    }
    if (m.spare && spares.length < MAX_SPARES) spares.push(m.spare);
    job.inFlight -= 1;
    if (job.inFlight < MAX_BATCHES_IN_FLIGHT) for (const wake of job.waiting.splice(0)) wake();
  });
  w.on('error', (e) => failAll(new Error(`the hashing thread failed: ${e.message}`)));
  w.on('exit', (code) => {
    if (worker === w) failAll(new Error(`the hashing thread stopped (exit code ${code})`));
  });
  w.unref();
  worker = w;
  return w;
}

export interface Sha512 {
  /** Takes a chunk (it may be reused once this returns); a promise means: wait before the next one. */
  update(chunk: Buffer): Promise<void> | undefined;
  digest(): Promise<string>;
  /** The upload failed: frees the worker's state for it. Safe to call at any point, more than once. */
  abort(): void;
}

export function sha512(): Sha512 {
  let staging = batchBuffer();
  let fill = 0;
  let id = 0;
  let job: Job | undefined;
  let over = false;

  const post = (data: Uint8Array) => {
    if (!job) {
      id = nextId++;
      job = { inFlight: 0, waiting: [] };
      jobs.set(id, job);
      hashingWorker().ref();
    }
    if (job.failed) throw job.failed;
    job.inFlight += 1;
    // Every batch buffer owns its ArrayBuffer whole (allocUnsafeSlow or a spare), so handing it over moves exactly these bytes.
    worker!.postMessage({ id, data }, [data.buffer as ArrayBuffer]);
  };

  const waitForWorker = (): Promise<void> | undefined => {
    const j = job;
    if (!j || j.inFlight < MAX_BATCHES_IN_FLIGHT) return undefined;
    return new Promise<void>((resolve, reject) => {
      j.waiting.push(() => (j.failed ? reject(j.failed) : resolve()));
    });
  };

  return {
    update(chunk) {
      for (let off = 0; off < chunk.length;) {
        const n = Math.min(BATCH_BYTES - fill, chunk.length - off);
        chunk.copy(staging, fill, off, off + n);
        fill += n;
        off += n;
        if (fill === BATCH_BYTES) {
          post(staging);
          staging = batchBuffer();
          fill = 0;
        }
      }
      return waitForWorker();
    },
    digest() {
      over = true;
      if (!job) return Promise.resolve(createHash('sha512').update(staging.subarray(0, fill)).digest('hex'));
      const j = job;
      if (j.failed) return Promise.reject(j.failed);
      if (fill > 0) post(staging.subarray(0, fill));
      return new Promise<string>((resolve, reject) => {
        j.done = { resolve, reject };
        worker!.postMessage({ id });
      });
    },
    abort() {
      if (over) return;
      over = true;
      if (!job || job.failed) return;
      jobs.delete(id);
      worker?.postMessage({ id, drop: true });
      if (jobs.size === 0) worker?.unref();
    },
  };
}
