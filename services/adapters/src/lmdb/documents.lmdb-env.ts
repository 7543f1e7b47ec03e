/**
 * The embedded documents store's LMDB environment (layout in documents.lmdb.ts): the four named
 * databases in one env, so one write transaction covers them all, the layout version check, and
 * the one way to write. Writes resolve only once committed and flushed to disk.
 */
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Doc } from '../documents/documents.shared.js';

export type Key = string | number | boolean | Uint8Array | Key[];
/** Where a unique-index value points: [accountId, id]. */
export type Ref = [accountId: string, id: string];

/** Sorts after every string/number element, closing a prefix range. */
export const MAX = new Uint8Array([0xff]);
const FORMAT = 1;

/** The outcome of a write transaction, as a value: a throwing async LMDB callback is not rolled back. */
export type TxResult<T> = { ok: true; value: T } | { ok: false; error: unknown };
export const ok = <T>(value: T): TxResult<T> => ({ ok: true, value });
export const fail = <T>(error: unknown): TxResult<T> => ({ ok: false, error });

export interface LmdbEnv {
  /** [collection, accountId, id] -> document. */
  docs: Database<Doc, Key>;
  /** Unique-index values -> the document holding them. */
  uniq: Database<Ref, Key>;
  /** ['format'] -> layout version; ['idx' | 'sidx', collection, index] -> index definition. */
  meta: Database<unknown, Key>;
  /** Secondary indexes: [collection, index, accountId, ...encoded values, id] -> 1. */
  sidx: Database<number, Key>;
  /** Throws once the store is closed. */
  checkOpen(): void;
  /**
   * Runs `fn` inside a write transaction (batched with the other writes of this event turn) and
   * resolves once it is committed and flushed. `fn` must do all checks before its first write and
   * report failures as values (TxResult).
   */
  write<T>(fn: () => TxResult<T>): Promise<T>;
  close(): Promise<void>;
}

/** Opens (or creates) the environment at `path`; refuses a layout version it does not know. */
export async function openLmdbEnv(path: string): Promise<LmdbEnv> {
  const root: RootDatabase = open({ path, compression: false, maxDbs: 8 });
  const docs = root.openDB<Doc, Key>({ name: 'docs', compression: false, cache: false, sharedStructuresKey: Symbol.for('structures') });
  const uniq = root.openDB<Ref, Key>({ name: 'uniq', compression: false, cache: false });
  const meta = root.openDB<unknown, Key>({ name: 'meta', compression: false, cache: false });
  const sidx = root.openDB<number, Key>({ name: 'sidx', compression: false, cache: false });
  let closed = false;

  const checkOpen = (): void => {
    if (closed) throw new Error('documents: the store is closed');
  };

  async function write<T>(fn: () => TxResult<T>): Promise<T> {
    checkOpen();
    const r = await root.transaction(() => {
      try {
        return fn();
      } catch (e) {
        return fail<T>(e);
      }
    });
    await root.flushed;
    if (!r.ok) throw r.error;
    return r.value;
  }

  const format = meta.get(['format']);
  if (format === undefined) {
    await write(() => {
      if (meta.get(['format']) === undefined) meta.putSync(['format'], FORMAT);
      return ok(undefined);
    });
  } else if (format !== FORMAT) {
    await root.close();
    throw new Error(`documents: unsupported data format ${String(format)} at ${path}`);
  }

  return {
    docs,
    uniq,
    meta,
    sidx,
    checkOpen,
    write,
    async close() {
      if (closed) return;
      closed = true;
      await root.close();
    },
  };
}
