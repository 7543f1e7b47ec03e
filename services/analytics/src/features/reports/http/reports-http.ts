/**
 * Reports over plain HTTP (files, not GraphQL documents), mounted in front of the REST facade
 * like the data-table and media routers (rest.yaml: x-pylon-handler: analytics):
 *
 *   GET  /report            the catalog (the reference's Report[]); `id` narrows it
 *   POST /report/export     the file (CSV, XLSX or PDF), streamed; ReportExportPostBody. With
 *                           `Prefer: respond-async`, or over REPORT_JOB_THRESHOLD_ROWS records in
 *                           scope, a job writing the file (202 + Location: /jobs/{id}; export-job.ts)
 *   POST /report/adhawk     501: AdHawk datasets are not offered (declared in rest.yaml with its 501)
 *
 * Errors use the facade's shape { "error": { "code", "message", "field"?, "request_id"? } } and
 * come before the first byte; a failure after it cuts the connection (a short file never looks whole).
 */
import express, { type Request, type Response, type Router } from 'express';
import {
  AppError,
  auditNote,
  auditTrail,
  authedRoutes,
  guardHandler,
  invalidJsonMessage,
  jobPrincipal,
  restJob,
  type AuditSink,
  type AuthedHandler,
  type JobRunner,
  type Logger,
  type Principal,
} from '@pylon/kit';
import { REPORT_EXPORT_JOB_KIND, type ReportExportJobInput } from '../report-export-job.js';
import { checkExportQuery } from '../../../domain/reports/export-request.js';
import { prepareReportExport, type ReportsDeps } from '../export-report.js';
import { listReports } from '../list-reports.js';

export interface ReportsHttpOptions {
  /** The caller, or null when the request carries no valid credentials (401). */
  authenticate(req: Request): Promise<Principal | null>;
  logger?: Logger;
  /** Where each request's audit event goes (controller `Report`; none: not recorded). */
  audit?: AuditSink | undefined;
  /**
   * Exports run as jobs when asked (Prefer: respond-async) or over `thresholdRows` source records
   * (REPORT_JOB_THRESHOLD_ROWS); the runner must have the report export kind registered. Absent:
   * every export streams in the request.
   */
  jobs?: { runner: JobRunner; thresholdRows: number };
}

/** RFC 7240: the client asks for a 202 and a job rather than waiting for the file. */
const prefersAsync = (req: Request) => (req.get('prefer') ?? '').split(/[,;]/).some((p) => p.trim().toLowerCase() === 'respond-async');

/** Export bodies are small JSON objects (at most 2 x 1000 ids). */
const BODY_LIMIT = '256kb';

export function createReportsHttp(deps: ReportsDeps, o: ReportsHttpOptions): Router {
  const router = express.Router();
  // Exports carry an account's data out: every one is in the audit trail, with who asked for what.
  router.use('/report', auditTrail({ sink: o.audit, interface: 'rest', controller: () => 'Report' }));
  const json = express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json', 'text/json'] });

  const route = authedRoutes({ authenticate: o.authenticate, logger: o.logger, what: 'report request' });
  const authed = (action: string, h: AuthedHandler) =>
    route((req, res, principal) => {
      Object.assign(auditNote(res), {
        principal: { accountId: principal.accountId, userId: principal.userId, userName: principal.userName },
        controllerName: 'Report',
        actionName: action,
      });
      return h(req, res, principal);
    });

  /** Parses the JSON body inside `authed`, so a malformed or oversized body is a 400/413 naming `body`. */
  const body = (req: Request, res: Response) =>
    new Promise<unknown>((resolve, reject) => {
      if (!req.is(['application/json', 'application/*+json', 'text/json']))
        return reject(new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json', { field: 'body' }));
      json(req, res, (err?: unknown) => {
        if (!err) return resolve(req.body);
        const status = (err as { status?: number }).status;
        reject(
          status === 413
            ? new AppError('PAYLOAD_TOO_LARGE', `the body is larger than ${BODY_LIMIT}`, { field: 'body' })
            : new AppError('BAD_USER_INPUT', invalidJsonMessage((err as { body?: unknown }).body), { field: 'body' }),
        );
      });
    });

  router.get(
    '/report',
    authed('listReports', async (req, res, principal) => {
      for (const [k, v] of Object.entries(req.query)) {
        if (k !== 'id' && k !== 'api_key') throw new AppError('VALIDATION_FAILED', `unknown query parameter '${k.slice(0, 50)}'`, { field: k.slice(0, 50) });
        if (typeof v !== 'string') throw new AppError('VALIDATION_FAILED', `query parameter '${k}' must be given once`, { field: k });
      }
      res.status(200).json(listReports(principal, typeof req.query.id === 'string' ? req.query.id : undefined));
    }),
  );

  router.post(
    '/report/export',
    authed('exportReport', async (req, res, principal) => {
      guardHandler(principal, 'exportReport');
      checkExportQuery(req.query);
      const input = await body(req, res);
      const file = await prepareReportExport(deps, principal, input);
      const jobs = o.jobs;
      if (jobs && (prefersAsync(req) || (await file.estimateRows()) > jobs.thresholdRows)) {
        const job: ReportExportJobInput = { body: input, principal: jobPrincipal(principal) };
        const submitted = await jobs.runner.submit(principal.accountId, principal.userId, REPORT_EXPORT_JOB_KIND, job as unknown as Record<string, unknown>);
        res.status(202).setHeader('Location', `/jobs/${submitted.id}`).setHeader('Preference-Applied', 'respond-async');
        res.json(restJob(submitted, jobs.runner.files));
        return;
      }
      res.status(200);
      res.setHeader('Content-Type', file.contentType);
      res.setHeader('Content-Disposition', `attachment; filename="${file.filename}"`);
      res.setHeader('Cache-Control', 'private, no-store');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      try {
        await file.write(res);
      } catch (e) {
        o.logger?.warn({ err: e }, 'report export stopped');
        res.destroy();
      }
    }),
  );

  router.post(
    '/report/adhawk',
    authed('adhawkReport', async (req, _res, principal) => {
      guardHandler(principal, 'adhawkReport');
      await body(req, _res);
      throw new AppError(
        'NOT_IMPLEMENTED',
        'AdHawk datasets are not offered: use the /analytics endpoints or GraphQL analytics queries, or POST /report/export',
      );
    }),
  );

  return router;
}
