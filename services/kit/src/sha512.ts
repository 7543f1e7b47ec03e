/**
 * The SHA-512 of an upload (the media record's `sha512`), computed on a worker thread so the event
 * loop is free to read the socket and write the file meanwhile. SHA-512 runs at ~850 MB/s here, a
 * quarter of a second of a 200 MB upload; on the event loop it was the largest single cost of one.
 *
 * Each worker owns a ring of shared memory: the event loop copies each chunk into it (a memcpy, no
 * message per chunk, no allocation) and the worker hashes what is there. A full ring makes `update`
 * wait, so a slow hash slows the upload rather than buffering it. Up to `MAX_WORKERS` workers are
 * started on first use and kept, each serving one upload at a time; an upload that finds them all
 * busy hashes on the event loop as before. An idle worker does not keep the process alive.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

export interface Sha512 {
  /** Whether a worker thread hashes (false: every worker was busy, the event loop hashes). */
  readonly offThread: boolean;
  /**
   * Resolves once `chunk` is in the ring (at once, `undefined`, unless the ring is full): `chunk` may
   * then be reused. One call at a time: await it before the next `update` or `digest`.
   */
  update(chunk: Buffer): Promise<void> | void;
  /** The hex digest of everything updated; the hasher is done (and its worker free) after it. */
  digest(): Promise<string>;
  /** Frees the hasher without a digest (the upload failed). */
  discard(): void;
}

const RING_BYTES = 8 << 20;
/** The worker is woken once this much arrived (not per 64 KB socket chunk: each wake is a context switch). */
const WAKE_BYTES = 1 << 20;
const MAX_WORKERS = 2;

// Int32 slots shared with the worker. USED: bytes in the ring. SEQ: bumped by the event loop after
// every change the worker should see. ACK: bumped by the worker after it consumed bytes or answered.
// CMD: 1 = digest what you have and start over. DONE: 1 = the digest is in `out`.
const USED = 0;
const SEQ = 1;
const ACK = 2;
const CMD = 3;
const DONE = 4;
const FAILED = 5;

const WORKER = `
const { workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { ring, ctl, out } = workerData;
const data = Buffer.from(ring);
const c = new Int32Array(ctl);
const digestOut = Buffer.from(out);
let hash = createHash('sha512');
let at = 0;
const ack = () => { Atomics.add(c, ${ACK}, 1); Atomics.notify(c, ${ACK}); };
try {
  for (;;) {
    const seq = Atomics.load(c, ${SEQ});
    const used = Atomics.load(c, ${USED});
    if (used > 0) {
      const n = Math.min(used, data.length - at);
      hash.update(data.subarray(at, at + n));
      at = (at + n) % data.length;
      Atomics.sub(c, ${USED}, n);
      ack();
    } else if (Atomics.load(c, ${CMD}) === 1) {
      hash.digest().copy(digestOut);
      hash = createHash('sha512');
      Atomics.store(c, ${CMD}, 0);
      Atomics.store(c, ${DONE}, 1);
      ack();
    } else {
      Atomics.wait(c, ${SEQ}, seq);
    }
  }
} catch (e) {
  Atomics.store(c, ${FAILED}, 1);
  ack();
  throw e;
}
`;

interface RingWorker {
  worker: Worker;
  data: Buffer;
  ctl: Int32Array;
  out: Buffer;
  /** Where the event loop writes next (the worker reads in the same order, so after a digest both agree). */
  at: number;
  busy: boolean;
  /** Why the worker stopped, once it has. */
  failed: Error | null;
}

const workers: RingWorker[] = [];

function startWorker(): RingWorker {
  const ring = new SharedArrayBuffer(RING_BYTES);
  const ctl = new SharedArrayBuffer(6 * 4);
  const out = new SharedArrayBuffer(64);
  // execArgv: [] so the process's flags (a loader, --input-type=module) do not change how this CommonJS runs.
  const worker = new Worker(WORKER, { eval: true, execArgv: [], workerData: { ring, ctl, out }, name: 'pylon-sha512' });
  const w: RingWorker = { worker, data: Buffer.from(ring), ctl: new Int32Array(ctl), out: Buffer.from(out), at: 0, busy: false, failed: null };
  const fail = (e: unknown) => {
    w.failed ??= e instanceof Error ? e : new Error(String(e));
    Atomics.store(w.ctl, FAILED, 1);
    Atomics.add(w.ctl, ACK, 1);
    Atomics.notify(w.ctl, ACK);
    const i = workers.indexOf(w);
    if (i >= 0) workers.splice(i, 1);
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
  worker.unref();
  workers.push(w);
  return w;
}

// Node 16+ has it; TypeScript's lib has it from ES2024 on, past the project's target.
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

/** Waits until the worker acknowledges something past `seen` (or failed). */
async function acked(w: RingWorker, seen: number): Promise<void> {
  const r = waitAsync(w.ctl, ACK, seen);
  if (r.async) await r.value;
}

function offThread(w: RingWorker): Sha512 {
  w.busy = true;
  // Waiting on the worker (Atomics.waitAsync) does not keep the event loop alive; the worker does while it serves.
  w.worker.ref();
  let done = false;
  let unannounced = 0;
  const release = () => {
    done = true;
    w.busy = false;
    w.worker.unref();
  };
  const failed = () => new Error(`the SHA-512 worker stopped: ${w.failed?.message ?? 'unknown'}`);
  const kick = () => {
    unannounced = 0;
    Atomics.add(w.ctl, SEQ, 1);
    Atomics.notify(w.ctl, SEQ);
  };
  const settle = async (): Promise<void> => {
    Atomics.store(w.ctl, DONE, 0);
    Atomics.store(w.ctl, CMD, 1);
    kick();
    for (;;) {
      const seen = Atomics.load(w.ctl, ACK);
      if (Atomics.load(w.ctl, FAILED)) throw failed();
      if (Atomics.load(w.ctl, DONE)) return;
      await acked(w, seen);
    }
  };
  const write = (chunk: Buffer, from: number): number => {
    const free = w.data.length - Atomics.load(w.ctl, USED);
    const n = Math.min(chunk.length - from, free, w.data.length - w.at);
    if (n === 0) return 0;
    chunk.copy(w.data, w.at, from, from + n);
    w.at = (w.at + n) % w.data.length;
    Atomics.add(w.ctl, USED, n);
    unannounced += n;
    if (unannounced >= WAKE_BYTES) kick();
    return n;
  };
  async function waitForRoom(chunk: Buffer, from: number): Promise<void> {
    while (from < chunk.length) {
      const seen = Atomics.load(w.ctl, ACK);
      if (Atomics.load(w.ctl, FAILED)) throw failed();
      const n = write(chunk, from);
      if (n === 0) {
        kick();
        await acked(w, seen);
      }
      from += n;
    }
  }
  return {
    offThread: true,
    update(chunk) {
      if (done) throw new Error('the hash is already done');
      if (Atomics.load(w.ctl, FAILED)) throw failed();
      let from = 0;
      for (let n = 1; n > 0 && from < chunk.length; from += n) n = write(chunk, from);
      return from < chunk.length ? waitForRoom(chunk, from) : undefined;
    },
    async digest() {
      if (done) throw new Error('the hash is already done');
      try {
        await settle();
        return w.out.toString('hex');
      } finally {
        release();
      }
    },
    discard() {
      if (done) return;
      // The worker hashes what is left and starts over; the next upload finds it clean.
      settle().then(release, release);
      done = true;
    },
  };
}

function onThread(): Sha512 {
  const hash = createHash('sha512');
  let done = false;
  const open = () => {
    if (done) throw new Error('the hash is already done');
  };
  return {
    offThread: false,
    update: (chunk) => void (open(), hash.update(chunk)),
    digest: async () => (open(), (done = true), hash.digest('hex')),
    discard: () => void (done = true),
  };
}

/** Set when a worker could not even be created (a runtime without them): the event loop hashes from then on. */
let noWorkers = false;

function freeWorker(): RingWorker | undefined {
  const idle = workers.find((w) => !w.busy && !w.failed);
  if (idle || noWorkers || workers.length >= MAX_WORKERS) return idle;
  try {
    return startWorker();
  } catch {
    noWorkers = true;
    return undefined;
  }
}

/** A SHA-512 hasher: on a free worker thread when there is one, else on the event loop. */
export function sha512(): Sha512 {
  const free = freeWorker();
  return free ? offThread(free) : onThread();
}
