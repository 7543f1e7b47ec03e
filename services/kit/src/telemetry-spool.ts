/**
 * A disk spool for telemetry the stream could not take: each spooled batch is one file
 * (`<dir>/<topic>/<time>-<seq>.jsonl`, one JSON record a line), written to a temporary name,
 * fsynced and renamed, so a file either holds its whole batch or does not exist. Files are
 * republished oldest first and deleted only after the stream accepted them (a crash in between
 * republishes the file again: the store collapses the replay by event id).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export interface SpooledBatch {
  values: unknown[];
  /** Deletes the file: call once the stream holds its records. */
  done(): Promise<void>;
}

export interface Spool {
  /** Resolves once `values` are on disk (fsynced). */
  write(topic: string, values: unknown[]): Promise<void>;
  /**
   * The same, blocking: returns once `values` are on disk. For a fire-and-forget producer whose
   * memory is full (BufferedPublisher.push): it cannot wait, so the disk write is its back-pressure.
   */
  writeSync?(topic: string, values: unknown[]): void;
  /** The oldest spooled batch of `topic`, or null when none is left. */
  next(topic: string): Promise<SpooledBatch | null>;
  /** Files and bytes waiting, for the spool-size metric. */
  size(): Promise<{ files: number; bytes: number }>;
}

const SAFE_TOPIC = /^[A-Za-z0-9._-]{1,200}$/;

export function createFileSpool(dir: string): Spool {
  mkdirSync(dir, { recursive: true });
  let seq = 0;
  const topicDir = (topic: string) => {
    if (!SAFE_TOPIC.test(topic)) throw new Error(`unsafe topic name for the spool: ${topic.slice(0, 50)}`);
    const d = join(dir, topic);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const files = async (d: string) => (await readdir(d).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl')).sort();

  const fileName = () => `${Date.now().toString().padStart(15, '0')}-${process.pid}-${String(seq++).padStart(9, '0')}`;
  const text = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join('\n') + '\n';
  const syncNow = (path: string, flags: string, data?: string) => {
    const fd = openSync(path, flags);
    try {
      if (data !== undefined) writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };

  return {
    writeSync(topic, values) {
      const d = topicDir(topic);
      const name = fileName();
      syncNow(join(d, `${name}.tmp`), 'wx', text(values));
      renameSync(join(d, `${name}.tmp`), join(d, `${name}.jsonl`));
      syncNow(d, 'r');
    },
    async write(topic, values) {
      const d = topicDir(topic);
      const name = fileName();
      const tmp = join(d, `${name}.tmp`);
      const fh = await open(tmp, 'wx');
      try {
        await fh.writeFile(text(values));
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, join(d, `${name}.jsonl`));
      // The rename itself must survive a power cut: sync the directory.
      const dh = await open(d, 'r');
      try {
        await dh.sync();
      } finally {
        await dh.close();
      }
    },
    async next(topic) {
      const d = topicDir(topic);
      const [first] = await files(d);
      if (!first) return null;
      const path = join(d, first);
      const text = await readFile(path, 'utf8');
      const values = text
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as unknown);
      return { values, done: () => unlink(path).catch(() => undefined) };
    },
    async size() {
      let count = 0;
      let bytes = 0;
      for (const t of await readdir(dir).catch(() => [] as string[])) {
        for (const f of await files(join(dir, t))) {
          count++;
          bytes += (await stat(join(dir, t, f)).catch(() => ({ size: 0 }))).size;
        }
      }
      return { files: count, bytes };
    },
  };
}
