/**
 * Embedded durable EventStream: the in-process bus of stream.memory.ts over an append-only log in
 * LMDB under the data dir (`<dataDir>/stream`), so `kill -9` loses nothing a publish acknowledged.
 *
 *   log      [topic, offset] -> { k, t, j }   one entry per message, offsets dense per topic
 *   topics   topic -> next offset             written in the same transaction as the entries
 *   offsets  [topic, group] -> offset         what each consumer group committed
 *
 * Invariants:
 * - `publish` resolves only after the transaction holding its entries is committed and flushed.
 * - Consumers are handed only flushed entries, and a group's offset is committed after its
 *   handler resolved: after any crash a group resumes at or before its first unhandled message
 *   (at-least-once; the store collapses replays by event id).
 * - Retention never deletes a message some group has not consumed. Consumed messages stay for
 *   replay until they are older than `retentionMs` or the consumed part of a topic outgrows
 *   `retentionBytes`, whichever comes first. A topic no group reads yet keeps everything.
 * - One process owns a data dir's stream (offsets are assigned in memory); the all-in-one is that
 *   process, and the distributed deployment uses Kafka.
 */
import { mkdirSync } from 'node:fs';
import { open } from 'lmdb';
import type { EventStream } from '@pylon/kit/ports/stream';
import { createMemoryStream, type MemoryStreamOptions, type StoredEntry, type StreamLog } from '../memory/stream.memory.js';

export interface LmdbStreamOptions extends Omit<MemoryStreamOptions, 'log'> {
  /** Directory of the log (created when missing). */
  path: string;
  /** Consumed messages are kept at most this long. Default 24 h. */
  retentionMs?: number;
  /** Consumed messages of one topic are kept up to this many bytes. Default 256 MiB. */
  retentionBytes?: number;
  /** How often retention runs (0: only when `retain()` is called). Default 60 s. */
  retentionIntervalMs?: number;
}
// maxResidentBytes (MemoryStreamOptions): what a topic keeps in memory; the rest is read back from the log.

export interface DurableStream extends EventStream {
  /** Applies retention now; answers how many consumed messages it deleted. */
  retain(): Promise<{ deleted: number }>;
  /**
   * Messages on disk per topic (and the bytes of message text the bus holds in memory for it) and
   * committed offsets per group: what lag metrics read.
   */
  stats(): { topics: { topic: string; next: number; residentBytes: number }[]; groups: { topic: string; group: string; offset: number }[] };
}

interface Row {
  k: string | null;
  t: number;
  j: string;
}
type LogKey = [string, number];
type OffsetKey = [string, string];

export function createLmdbStream(opts: LmdbStreamOptions): DurableStream {
  mkdirSync(opts.path, { recursive: true });
  const root = open({ path: opts.path, compression: false, maxDbs: 4 });
  const log = root.openDB<Row, LogKey>({ name: 'log', compression: false, cache: false });
  const topics = root.openDB<number, string>({ name: 'topics', compression: false, cache: false });
  const offsets = root.openDB<number, OffsetKey>({ name: 'offsets', compression: false, cache: false });
  const retentionMs = opts.retentionMs ?? 24 * 3600_000;
  const retentionBytes = opts.retentionBytes ?? 256 * 1024 * 1024;

  const committedOffsets = () => [...offsets.getRange({})].map(({ key, value }) => ({ topic: key[0], group: key[1], offset: value }));

  const store: StreamLog = {
    load() {
      const groups = committedOffsets();
      const out: ReturnType<StreamLog['load']> = { topics: [], offsets: groups };
      for (const { key: name, value: logged } of topics.getRange({})) {
        const mine = groups.filter((g) => g.topic === name);
        // Offsets never run ahead of the flushed log, but take the larger to be safe.
        const next = Math.max(logged, ...mine.map((g) => g.offset));
        const from = mine.length ? Math.min(...mine.map((g) => g.offset)) : firstOffset(name, next);
        // Entries may be missing only below retention (consumed by every group), so [from, next) is
        // dense; the bus reads it back lazily (`read`), as groups reach it.
        out.topics.push({ name, first: Math.max(from, firstOffset(name, next)), next });
      }
      return out;
    },
    read(topic, from, to) {
      const entries: StoredEntry[] = [];
      for (const { value } of log.getRange({ start: [topic, from], end: [topic, to] }))
        entries.push({ key: value.k ?? undefined, timestamp: value.t, json: value.j });
      return entries;
    },
    async append(topic, first, entries) {
      await log.transaction(() => {
        for (let i = 0; i < entries.length; i++) {
          const e = entries[i]!;
          void log.put([topic, first + i], { k: e.key ?? null, t: e.timestamp, j: e.json });
        }
        void topics.put(topic, first + entries.length);
      });
      await root.flushed;
    },
    async commit(topic, group, offset) {
      await offsets.put([topic, group], offset);
    },
    async close() {
      if (timer) clearInterval(timer);
      await root.flushed;
      await root.close();
    },
  };

  function firstOffset(topic: string, next: number): number {
    for (const { key } of log.getRange({ start: [topic, 0], end: [topic, next], limit: 1 })) return key[1];
    return next;
  }

  async function retain(): Promise<{ deleted: number }> {
    const groups = committedOffsets();
    const cutoff = Date.now() - retentionMs;
    let deleted = 0;
    for (const { key: topic } of topics.getRange({})) {
      const mine = groups.filter((g) => g.topic === topic);
      if (mine.length === 0) continue;
      const consumedEnd = Math.min(...mine.map((g) => g.offset));
      // Newest consumed first: once the byte budget is spent, everything older goes too.
      let bytes = 0;
      const doomed: LogKey[] = [];
      for (const { key, value } of log.getRange({ start: [topic, consumedEnd - 1], end: [topic, -1], reverse: true })) {
        bytes += value.j.length + 32;
        if (bytes > retentionBytes || value.t < cutoff) doomed.push(key);
      }
      if (doomed.length) {
        await log.transaction(() => {
          for (const k of doomed) void log.remove(k);
        });
        deleted += doomed.length;
      }
    }
    return { deleted };
  }

  const interval = opts.retentionIntervalMs ?? 60_000;
  const timer = interval > 0 ? setInterval(() => void retain().catch(() => undefined), interval) : undefined;
  timer?.unref();

  const bus = createMemoryStream({ maxBuffered: 200_000, ...opts, log: store });
  return Object.assign(bus, {
    retain,
    stats: () => ({
      topics: [...topics.getRange({})].map(({ key, value }) => ({ topic: key, next: value, residentBytes: bus.residentBytes(key) })),
      groups: committedOffsets(),
    }),
  });
}
