/**
 * The files jobs produce (large data-table exports, report exports): written, streamed, to the blobs
 * port (local files embedded, S3 scaled) under the job's account, and handed out through a signed,
 * expiring link that works without an API key:
 *
 *   /jobs/{id}/result?expires=<unix seconds>&signature=<HMAC-SHA256(secret, "job-result\n" id "\n" expires)>
 *
 * The link is signed anew each time the job is read (GET /jobs/{id}, GraphQL job), valid for
 * `linkSeconds` but never past the file's retention. A finished file is kept `retentionSeconds`,
 * then removed by the sweep. A job that fails or is cancelled leaves no file (its kind's cleanup
 * calls discard(); the blobs port never shows a half-written blob).
 *
 * The result route has no caller to scope by, so each file is also listed under the system tenant
 * (collection `jobFiles`, { id: jobId, tenant, key, ... }): the signature is checked first, then the
 * listing names the account whose blob is streamed. That listing also drives the retention sweep.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { PassThrough, type Writable } from 'node:stream';
import { envInt } from '../config.js';
import type { Logger } from '../logger.js';
import type { BlobStore } from '../ports/blobs.js';
import type { Collection, DocumentStore } from '../ports/documents.js';

/** What this module reads of a job (jobs.ts's Job; not imported, so the two modules do not depend on each other). */
type Job = { id: string; state: string; result: Record<string, unknown> | null };

/** A job's file as its result record keeps it (`result.file`). */
export interface JobResultFile {
  /** Blob key under the job's account. */
  key: string;
  filename: string;
  contentType: string;
  bytes: number;
  /** When the sweep removes it (ISO). */
  expiresAt: string;
}

/** The download link of a finished job's file. */
export interface JobResultLink {
  url: string;
  /** When this link stops working (ISO); GET /jobs/{id} signs a new one while the file is kept. */
  expiresAt: string;
  filename: string;
  contentType: string;
  bytes: number;
}

interface Listed extends JobResultFile {
  tenant: string;
}

export interface JobFileSettings {
  /** Seconds a result file is kept after it was written (JOB_RESULT_RETENTION_SECONDS). */
  retentionSeconds: number;
  /** Seconds a signed link stays valid (JOB_RESULT_LINK_SECONDS). */
  linkSeconds: number;
}

export const DEFAULT_JOB_FILE_SETTINGS: JobFileSettings = { retentionSeconds: 24 * 3600, linkSeconds: 3600 };

const FILES = { name: 'jobFiles', indexes: [{ name: 'expiresAt', fields: ['expiresAt'] }] };
const SYSTEM_TENANT = '_system';
/** Files removed per sweep pass (the next pass takes the rest). */
const SWEEP_BATCH = 200;

export type LinkCheck = 'ok' | 'expired' | 'invalid';

export class JobFiles {
  private readonly listed: Collection<Listed>;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly blobs: BlobStore,
    store: DocumentStore,
    private readonly secret: string,
    readonly settings: JobFileSettings = DEFAULT_JOB_FILE_SETTINGS,
    private readonly logger?: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.listed = store.collection<Listed>(FILES);
  }

  /**
   * Streams a job's file into the blobs port: `produce` writes into the stream it is given (honour
   * its backpressure). Resolves with the stored file; on any failure nothing is kept.
   */
  async write(
    tenant: string,
    jobId: string,
    file: { filename: string; contentType: string; ext: string },
    produce: (out: Writable) => Promise<void>,
  ): Promise<JobResultFile> {
    const key = `job-${jobId}.${file.ext}`;
    const body = new PassThrough({ highWaterMark: 256 * 1024 });
    // Failures reach the caller through the promises below; the stream's own 'error' is not a crash.
    body.on('error', () => undefined);
    const stored = this.blobs.put(tenant, key, body, file.contentType);
    // If the store fails first, the producer sees a destroyed stream and stops.
    stored.catch((e: unknown) => body.destroy(e as Error));
    try {
      await produce(body);
      body.end();
    } catch (e) {
      body.destroy(e as Error);
      await stored.catch(() => undefined);
      await this.blobs.delete(tenant, key).catch(() => false);
      throw e;
    }
    const info = await stored;
    const out: JobResultFile = {
      key,
      filename: file.filename,
      contentType: file.contentType,
      bytes: info.size,
      expiresAt: new Date(this.now() + this.settings.retentionSeconds * 1000).toISOString(),
    };
    await this.listed.insert(SYSTEM_TENANT, { id: jobId, tenant, ...out });
    return out;
  }

  /** Removes a job's file and its listing (a failed or cancelled job; the sweep). */
  async discard(tenant: string, jobId: string): Promise<void> {
    const listed = await this.listed.findById(SYSTEM_TENANT, jobId);
    const key = listed?.key;
    if (listed) await this.listed.delete(SYSTEM_TENANT, jobId);
    // A file may be stored but not yet listed (the job stopped in between): its key is fixed by the id.
    for (const k of key ? [key] : ['csv', 'xlsx', 'pdf'].map((ext) => `job-${jobId}.${ext}`)) await this.blobs.delete(tenant, k).catch(() => false);
  }

  private sign(jobId: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`job-result\n${jobId}\n${expires}`).digest('base64url');
  }

  /** The download link of a job's file, when it has one still kept; null otherwise. */
  link(job: Job): JobResultLink | null {
    const file = resultFile(job);
    if (!file || job.state !== 'succeeded') return null;
    const keptUntil = Math.floor(Date.parse(file.expiresAt) / 1000);
    const nowS = Math.floor(this.now() / 1000);
    if (!(keptUntil > nowS)) return null;
    // Rounded up to a step of linkSeconds/2, so repeated reads give the same link for a while.
    const step = Math.max(1, Math.floor(this.settings.linkSeconds / 2));
    const expires = Math.min(keptUntil, (Math.floor(nowS / step) + 2) * step);
    return {
      url: `/jobs/${encodeURIComponent(job.id)}/result?expires=${expires}&signature=${this.sign(job.id, expires)}`,
      expiresAt: new Date(expires * 1000).toISOString(),
      filename: file.filename,
      contentType: file.contentType,
      bytes: file.bytes,
    };
  }

  /** Whether a link's signature is genuine (constant-time) and unexpired. */
  check(jobId: string, expires: unknown, signature: unknown): LinkCheck {
    if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof signature !== 'string' || signature.length > 100) return 'invalid';
    const want = Buffer.from(this.sign(jobId, Number(expires)));
    const got = Buffer.from(signature);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return 'invalid';
    return Number(expires) > Math.floor(this.now() / 1000) ? 'ok' : 'expired';
  }

  /** The file behind a checked link, streamed; null when it was removed (retention, cancel). */
  async open(jobId: string) {
    const listed = await this.listed.findById(SYSTEM_TENANT, jobId);
    if (!listed || Date.parse(listed.expiresAt) <= this.now()) return null;
    const blob = await this.blobs.get(listed.tenant, listed.key);
    return blob ? { file: listed as JobResultFile, body: blob.body, size: blob.info.size } : null;
  }

  /** Removes the files past their retention; returns how many. */
  async sweep(): Promise<number> {
    const due = await this.listed.find(SYSTEM_TENANT, { expiresAt: { $lte: new Date(this.now()).toISOString() } }, { limit: SWEEP_BATCH });
    for (const f of due) await this.discard(f.tenant, f.id);
    return due.length;
  }

  /** Sweeps now and then (every quarter of the retention, at most every 10 minutes) until close(). */
  start(): void {
    if (this.timer) return;
    const every = Math.min(600, Math.max(1, Math.floor(this.settings.retentionSeconds / 4))) * 1000;
    this.timer = setInterval(() => {
      this.sweep().catch((err: unknown) => this.logger?.warn({ err }, 'job result sweep failed'));
    }, every);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** The file a job's result names (`result.file`), if any. */
export function resultFile(job: Job): JobResultFile | null {
  const f = job.result?.file as JobResultFile | undefined;
  return f && typeof f === 'object' && typeof f.key === 'string' ? f : null;
}

/** The job-file settings of a process's env (spread into each composition root that runs export jobs). */
export const jobFilesEnv = {
  /** Seconds a job's result file (an export) is kept before it is removed. */
  JOB_RESULT_RETENTION_SECONDS: envInt(DEFAULT_JOB_FILE_SETTINGS.retentionSeconds, 60, 90 * 24 * 3600),
  /** Seconds a signed download link of a job's result stays valid (GET /jobs/{id} signs a new one). */
  JOB_RESULT_LINK_SECONDS: envInt(DEFAULT_JOB_FILE_SETTINGS.linkSeconds, 10, 7 * 24 * 3600),
};

export const jobFileSettingsFrom = (env: { JOB_RESULT_RETENTION_SECONDS: number; JOB_RESULT_LINK_SECONDS: number }): JobFileSettings => ({
  retentionSeconds: env.JOB_RESULT_RETENTION_SECONDS,
  linkSeconds: env.JOB_RESULT_LINK_SECONDS,
});
