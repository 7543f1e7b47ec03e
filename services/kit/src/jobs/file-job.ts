/**
 * The part every job that produces a file (data-table exports, report exports) shares: the file is
 * streamed to the blobs port through JobFiles while progress (records done) is saved at most every
 * REPORT_EVERY_MS and cancellation is seen at every chunk; the end reports the total. A cancel
 * becomes JobCancelled, an AppError passes through as it is, anything else is logged and answered as
 * INTERNAL with the kind's own message. A job that does not succeed leaves no file (fileJobCleanup).
 */
import type { Writable } from 'node:stream';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { JobFiles, JobResultFile } from './job-files.js';
import type { Principal } from '../auth/principal.js';
import { JobCancelled, principalOfJob, type Job, type JobAccess, type JobContext, type JobPrincipal, type JobRunner } from './jobs.js';

/** Progress is saved at most this often (each save is a document write); cancellation is seen at every chunk. */
const REPORT_EVERY_MS = 250;

export interface FileJobSpec {
  /** The account the file is stored under. */
  tenant: string;
  file: { filename: string; contentType: string; ext: string };
  /** Writes the file into `out` (honour its backpressure), calling `progress` with the records done so far. */
  produce: (out: Writable, progress: (done: number) => Promise<void>) => Promise<void>;
  logger?: Logger;
  /** Logged with the error when the file could not be written for a reason that is no AppError. */
  logMessage: string;
  /** The INTERNAL error's message then. */
  failure: string;
}

/** Writes a job's file and reports its progress; resolves with the job's result ({ rows, file }). */
export async function writeFileJob(ctx: JobContext, files: JobFiles, spec: FileJobSpec): Promise<{ rows: number; file: JobResultFile }> {
  let rows = 0;
  let last = Date.now();
  const progress = async (done: number) => {
    rows = done;
    if (ctx.cancelled()) throw new JobCancelled();
    if (Date.now() - last < REPORT_EVERY_MS) return;
    last = Date.now();
    await ctx.report({ progress: { rowsDone: done } });
  };
  try {
    const file = await files.write(spec.tenant, ctx.job.id, spec.file, (out) => spec.produce(out, progress));
    await ctx.report({ progress: { rowsDone: rows, rowsTotal: rows } });
    return { rows, file };
  } catch (e) {
    if (ctx.cancelled() || e instanceof JobCancelled) throw new JobCancelled();
    if (e instanceof AppError) throw e;
    spec.logger?.error({ err: e, jobId: ctx.job.id }, spec.logMessage);
    throw new AppError('INTERNAL', spec.failure);
  }
}

/** The cleanup of a kind whose jobs produce a file: a job that did not succeed leaves none. */
export const fileJobCleanup =
  (files: JobFiles) =>
  (job: Job): Promise<void> =>
    job.state === 'succeeded' ? Promise.resolve() : files.discard(job.accountId, job.id);

/**
 * Registers a kind whose jobs produce one file. Each run reads its input, lets `prepare` check it
 * again as the caller who started the job and describe the file, and writes that file
 * (writeFileJob) through the runner's JobFiles; a job that does not succeed leaves no file
 * (fileJobCleanup). False, and nothing registered, when the runner keeps no job files.
 */
export function registerFileJob<I extends { principal: JobPrincipal }>(
  runner: JobRunner,
  kind: string,
  access: Omit<JobAccess, 'cleanup'>,
  prepare: (input: I, principal: Principal, ctx: JobContext) => Promise<FileJobSpec>,
): boolean {
  const files = runner.files;
  if (!files) return false;
  const run = async (ctx: JobContext) => {
    const input = ctx.job.input as unknown as I;
    return writeFileJob(ctx, files, await prepare(input, principalOfJob(input.principal), ctx));
  };
  runner.register(kind, run, { ...access, cleanup: fileJobCleanup(files) });
  return true;
}
