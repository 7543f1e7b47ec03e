/**
 * Jobs over plain HTTP, for whichever module submitted them (the composition root mounts it):
 *
 *   GET    /jobs/{id}   state, progress (rows done / total), the first row errors, the result
 *   DELETE /jobs/{id}   asks the job to stop (202 with its state; a finished job is answered as it is)
 *
 * Another account's job id answers 404, like an unknown one. Errors use the facades' shape:
 * { "error": { "code", "message", "field"? } }. Documented in rest.yaml (x-pylon-handler: jobs).
 */
import express, { type Request, type Response, type Router } from 'express';
import type { Principal } from '../auth/principal.js';
import { isAppError } from '../errors.js';
import { AUTHENTICATION_REQUIRED, sendAppError, sendRestError } from '../http/rest-errors.js';
import type { Job, JobRunner } from './jobs.js';

/** A job as REST answers it (snake_case; `links.self` where to poll). */
export function restJob(job: Job): Record<string, unknown> {
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    progress: { rows_done: job.progress.rowsDone, rows_total: job.progress.rowsTotal, rows_failed: job.progress.rowsFailed },
    errors: job.errors,
    result: job.result,
    error: job.error,
    created_on: job.createdAt,
    started_on: job.startedAt,
    finished_on: job.finishedAt,
    links: { self: `/jobs/${job.id}` },
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
      res.status(status).json(restJob(await work(principal, id)));
    } catch (e) {
      if (isAppError(e)) return sendAppError(res, e);
      sendRestError(res, 'INTERNAL', 'internal error');
    }
  };
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
