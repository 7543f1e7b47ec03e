/**
 * The SHA-512 of an upload, computed beside the request instead of on the event loop.
 *
 * OpenSSL hashes SHA-512 at ~850 MB/s on one core: a 200 MB upload hashed inline costs the event
 * loop ~250 ms that it would otherwise spend reading the socket (a third of the upload on a 2-vCPU
 * box). Here the bytes are gathered into 1 MiB copies and hashed, in order, by one worker thread
 * per process (started on the first large file, unref'd, shared by concurrent uploads). A file that
 * ends before its first 1 MiB is hashed inline at `digest()`: no worker round trip for small files.
 *
 * Memory: a hash holds at most its pending MiB plus `MAX_QUEUED_BYTES` posted and not yet hashed;
 * `whenReady()` resolves once the worker has caught up below that, and the upload waits for it.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { AppError } from '@pylon/kit';

const BATCH_BYTES = 1 << 20;
const MAX_QUEUED_BYTES = 8 * BATCH_BYTES;

/**
 * The worker: one Hash per open id; 'u' updates, 'd' digests (and replies), 'x' drops. Started
 * without the parent's flags (a loader, --input-type), so it reads as a plain script anywhere.
 */
const WORKER_SOURCE = `
const { parentPort } = process.getBuiltinModule('node:worker_threads');
const { createHash } = process.getBuiltinModule('node:crypto');
const open = new Map();
parentPort.on('message', (m) => {
  if (m.op === 'u') {
    let h = open.get(m.id);
    if (!h) open.set(m.id, (h = createHash('sha512')));
    h.update(new Uint8Array(m.buf));
    parentPort.postMessage({ id: m.id, hashed: m.buf.byteLength });
  } else if (m.op === 'd') {
    const h = open.get(m.id) ?? createHash('sha512');
    open.delete(m.id);
    parentPort.postMessage({ id: m.id, hex: h.digest('hex') });
  } else open.delete(m.id);
});
`;

interface Job {
  hashed(bytes: number): void;
  done(hex: string): void;
  failed(e: Error): void;
}

let worker: Worker | null = null;
const jobs = new Map<number, Job>();
let nextId = 1;

/** Adds or removes an open hash; the worker holds the process open while there is one. */
function track(id: number, job: Job | null): void {
  if (job) jobs.set(id, job);
  else jobs.delete(id);
  if (jobs.size === 0) worker?.unref();
  else worker?.ref();
}

function hashWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true, name: 'sha512', execArgv: [] });
  w.on('message', (m: { id: number; hashed?: number; hex?: string }) => {
    const job = jobs.get(m.id);
    if (!job) return;
    if (m.hex !== undefined) job.done(m.hex);
    else job.hashed(m.hashed ?? 0);
  });
  const fail = (e: Error) => {
    if (worker === w) worker = null;
    const err = new AppError('UNAVAILABLE', `the file could not be hashed: ${e.message}`);
    const failed = [...jobs.values()];
    jobs.clear();
    for (const job of failed) job.failed(err);
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`hash worker exited with code ${code}`)));
  // Kept alive while a hash is open (see `track`), not after: after the listeners, which ref it again.
  w.unref();
  return (worker = w);
}

export interface Sha512 {
  update(chunk: Buffer): void;
  /** Resolves when the bytes posted and not yet hashed are below the cap (at once when they are). */
  whenReady(): Promise<void>;
  /** The hex digest of everything updated; the hash cannot be used after. */
  digest(): Promise<string>;
  /** Forgets the hash (an upload that failed). */
  drop(): void;
}

export function createSha512(): Sha512 {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let id = 0;
  let own: Worker | null = null;
  let queued = 0;
  let error: Error | null = null;
  let waiter: (() => void) | null = null;
  let result: { resolve(hex: string): void; reject(e: Error): void } | null = null;

  const settle = () => {
    if (waiter && (queued <= MAX_QUEUED_BYTES || error)) {
      const w = waiter;
      waiter = null;
      w();
    }
  };
  const post = () => {
    // A copy in memory of our own (never the socket's buffers, which may share their memory), moved to the worker.
    const buf = new Uint8Array(pendingBytes);
    let at = 0;
    for (const b of pending) {
      buf.set(b, at);
      at += b.length;
    }
    pending = [];
    pendingBytes = 0;
    // Every part of one hash goes to the worker that holds its state; if that worker died, `error` is set.
    const w = (own ??= hashWorker());
    if (!id) {
      id = nextId++;
      track(id, {
        hashed(bytes) {
          queued -= bytes;
          settle();
        },
        done(hex) {
          track(id, null);
          result?.resolve(hex);
        },
        failed(e) {
          error = e;
          settle();
          result?.reject(e);
        },
      });
    }
    queued += buf.byteLength;
    w.postMessage({ op: 'u', id, buf: buf.buffer }, [buf.buffer]);
  };

  return {
    update(chunk) {
      if (chunk.length === 0) return;
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes >= BATCH_BYTES) post();
    },
    whenReady() {
      if (error) return Promise.reject(error);
      if (queued <= MAX_QUEUED_BYTES) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiter = () => (error ? reject(error) : resolve());
      });
    },
    digest() {
      if (error) return Promise.reject(error);
      if (!id) {
        const h = createHash('sha512');
        for (const b of pending) h.update(b);
        pending = [];
        return Promise.resolve(h.digest('hex'));
      }
      if (pendingBytes > 0) post();
      return new Promise<string>((resolve, reject) => {
        result = { resolve, reject };
        own!.postMessage({ op: 'd', id });
      });
    },
    drop() {
      pending = [];
      if (!id) return;
      track(id, null);
      own!.postMessage({ op: 'x', id });
    },
  };
}
