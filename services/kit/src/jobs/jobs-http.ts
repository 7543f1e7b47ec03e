/**
 * Jobs over plain HTTP, for whichever module submitted them (the composition root mounts it):
 *
 *   GET    /jobs/{id}          state, progress (rows done / total), the first row errors, the result
 *                               (a job that made a file: its signed download link, job-files.ts)
 *   DELETE /jobs/{id}          asks the job to stop (202 with its state; a finished job is answered as it is)
 *   GET    /jobs/{id}/result   the file, with ?expires=&signature= from the link, no API key: a bad
 *                               signature is 403, an expired link 403 (read the job for a new one),
 *                               a removed file 404
 *
 * Another account's job id answers 404, like an unknown one. Errors use the facades' shape:
 * { "error": { "code", "message", "field"? } }. Documented in rest.yaml (x-pylon-handler: jobs).
 */
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response, type Router } from 'express';
import type { Principal } from '../auth/principal.js';
import { httpStatus, isAppError } from '../errors.js';
import { AUTHENTICATION_REQUIRED, sendAppError, sendRestError } from '../http/rest-errors.js';
import type { JobFiles } from './job-files.js';
import type { Job, JobRunner } from './jobs.js';

/** A job's result as clients see it: a file's blob key stays inside; its signed link is added. */
function restResult(job: Job, files: JobFiles | undefined): Record<string, unknown> | null {
  if (!job.result) return null;
  const { file, ...rest } = job.result as { file?: { filename: string; contentType: string; bytes: number; expiresAt: string } };
  if (!file || typeof file !== 'object') return job.result;
  const link = files?.link(job) ?? null;
  return {
    ...rest,
    file: { filename: file.filename, content_type: file.contentType, bytes: file.bytes, kept_until: file.expiresAt },
    download_url: link?.url ?? null,
    download_expires_on: link?.expiresAt ?? null,
  };
}

/** A job as REST answers it (snake_case; `links.self` where to poll, `links.result` a finished file's signed link). */
export function restJob(job: Job, files?: JobFiles): Record<string, unknown> {
  const result = restResult(job, files);
  const download = typeof result?.download_url === 'string' ? result.download_url : null;
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    progress: { rows_done: job.progress.rowsDone, rows_total: job.progress.rowsTotal, rows_failed: job.progress.rowsFailed },
    errors: job.errors,
    result,
    error: job.error,
    created_on: job.createdAt,
    started_on: job.startedAt,
    finished_on: job.finishedAt,
    links: { self: `/jobs/${job.id}`, ...(download ? { result: download } : {}) },
  };
}

export function createJobsHttp(runner: JobRunner, o: { authenticate(req: Request): Promise<Principal | null> }): Router {
  const router = express.Router();
  const handle = (work: (principal: Principal, id: string) => Promise<Job>, status: number) => async (req: Request, res: Response) => {
    try {
      const principal = await o.authenticate(req);
      if (!principal) return sendRestError(res, 'UNAUTHENTICATED', AUTHENTICATION_REQUIRED);
      const id = String(req.params.id);
      if (id.length > 100) return sendRestError(res, 'NOT_FOUND', 'job was not found', { field: 'id' });
      res.status(status).json(restJob(await work(principal, id), runner.files));
    } catch (e) {
      if (isAppError(e)) return sendAppError(res, e);
      sendRestError(res, 'INTERNAL', 'internal error');
    }
  };
  const files = runner.files;
  if (files) {
    // No API key here: the signature is the credential (checked before anything is looked up).
    router.get('/jobs/:id/result', async (req, res) => {
      const fail = (status: number, code: string, message: string, field?: string) =>
        res.status(status).json({ error: { code, message, ...(field ? { field } : {}) } });
      try {
        const id = String(req.params.id);
        const check = id.length > 100 ? 'invalid' : files.check(id, req.query.expires, req.query.signature);
        if (check === 'invalid') return void fail(403, 'FORBIDDEN', 'the download link is not valid (signature)', 'signature');
        if (check === 'expired')
          return void fail(403, 'FORBIDDEN', `the download link expired; GET /jobs/${id} (with your API key) gives a new one`, 'expires');
        const found = await files.open(id);
        if (!found) return void fail(404, 'NOT_FOUND', 'the file is no longer kept (removed after its retention period, or the job was cancelled)', 'id');
        res.status(200);
        res.setHeader('Content-Type', found.file.contentType);
        res.setHeader('Content-Length', String(found.size));
        res.setHeader('Content-Disposition', `attachment; filename="${found.file.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`);
        res.setHeader('Cache-Control', 'private, no-store');
        res.setHeader('X-Content-Type-Options', 'nosniff');
        await pipeline(found.body, res).catch(() => res.destroy());
      } catch (e) {
        if (res.headersSent) return void res.destroy();
        if (isAppError(e)) return void fail(httpStatus(e.code), e.code, e.message);
        fail(500, 'INTERNAL', 'internal error');
      }
    });
  }
  router.get(
    '/jobs/:id',
    handle((p, id) => runner.read(p, id), 200),
  );
  router.delete(
    '/jobs/:id',
    handle((p, id) => runner.cancelAs(p, id), 202),
  );
  return router;
}
