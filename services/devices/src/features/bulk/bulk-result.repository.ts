/**
 * The targets and per-device results of bulk jobs, one document per chunk of targets (BULK_CHUNK
 * device ids in target order, and once applied their outcomes): a 10,000-device job writes ten
 * small documents and updates each once, instead of 10,000 result documents written twice. A
 * chunk without outcomes is pending; they are where a resumed job starts.
 */
import type { Collection, CollectionSpec, DocumentStore } from '@pylon/kit';

export type BulkResultState = 'pending' | 'ok' | 'failed';

/** A failed device's reason; null in `outcomes` is a device done without failure. */
export interface BulkFailure {
  error: string;
  code: string;
}

export interface BulkChunkRecord {
  jobId: string;
  /** The chunk's position: targets and results list in this order. */
  chunk: number;
  /** Position of the chunk's first target in the job. */
  first: number;
  deviceIds: string[];
  /** Null while pending; then one entry per device id (null: ok). */
  outcomes: Array<BulkFailure | null> | null;
  done: boolean;
}

export interface BulkResult {
  seq: number;
  deviceId: string;
  state: BulkResultState;
  error: string | null;
  errorCode: string | null;
}

/** `byJob` serves the next pending chunk (job, done, then order) and a job's listing. */
export const DEVICE_BULK_CHUNKS: CollectionSpec = {
  name: 'deviceBulkChunks',
  indexes: [{ name: 'byJob', fields: ['jobId', 'done', 'chunk'] }],
};

export class BulkResultRepository {
  private readonly chunks: Collection<BulkChunkRecord>;

  constructor(store: DocumentStore) {
    this.chunks = store.collection<BulkChunkRecord>(DEVICE_BULK_CHUNKS);
  }

  /**
   * A job's targets in chunks of `size` (pending), then the ids not found as one finished chunk of
   * failures; ids are `${jobId}:${chunk}`.
   */
  async seed(tenant: string, jobId: string, targets: readonly string[], notFound: readonly string[], size: number): Promise<void> {
    const docs: Array<BulkChunkRecord & { id: string }> = [];
    for (let i = 0; i < targets.length; i += size) {
      const chunk = docs.length;
      docs.push({ id: `${jobId}:${chunk}`, jobId, chunk, first: i, deviceIds: targets.slice(i, i + size), outcomes: null, done: false });
    }
    if (notFound.length) {
      const chunk = docs.length;
      const outcomes = notFound.map((id) => ({ error: `device '${id.slice(0, 100)}' was not found`, code: 'NOT_FOUND' }));
      docs.push({ id: `${jobId}:${chunk}`, jobId, chunk, first: targets.length, deviceIds: [...notFound], outcomes, done: true });
    }
    if (docs.length) await this.chunks.insertMany(tenant, docs);
  }

  /** Removes a job's chunks (a resolve cut short by a restart starts over). */
  clear(tenant: string, jobId: string): Promise<number> {
    return this.chunks.deleteMany(tenant, { jobId });
  }

  /** The job's next pending chunk, in order; null when none is left. */
  async nextPending(tenant: string, jobId: string): Promise<(BulkChunkRecord & { id: string }) | null> {
    const [next] = await this.chunks.find(tenant, { jobId, done: false }, { sort: { chunk: 1 }, limit: 1 });
    return next ?? null;
  }

  /** Records a chunk's outcomes, one per device id (one document write). */
  async settle(tenant: string, id: string, outcomes: Array<BulkFailure | null>): Promise<void> {
    await this.chunks.update(tenant, id, { $set: { outcomes, done: true } });
  }

  /** A job's per-device results in target order, optionally of one state. */
  async list(tenant: string, jobId: string, q: { state?: BulkResultState | null; limit: number; offset: number }): Promise<BulkResult[]> {
    const chunks = await this.chunks.find(tenant, { jobId }, { sort: { first: 1 } });
    const out: BulkResult[] = [];
    let skipped = 0;
    for (const c of chunks) {
      for (let k = 0; k < c.deviceIds.length; k++) {
        const o = c.outcomes ? (c.outcomes[k] ?? null) : undefined;
        const state: BulkResultState = o === undefined ? 'pending' : o === null ? 'ok' : 'failed';
        if (q.state && state !== q.state) continue;
        if (skipped++ < q.offset) continue;
        out.push({ seq: c.first + k, deviceId: c.deviceIds[k]!, state, error: o?.error ?? null, errorCode: o?.code ?? null });
        if (out.length >= q.limit) return out;
      }
    }
    return out;
  }
}
