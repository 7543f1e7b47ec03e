/**
 * Data tables over plain HTTP, for what the REST facade cannot do through a GraphQL document:
 *
 *   GET  /datatables/{tableId}/rows            row page; ETag (table generation + query), If-None-Match -> 304, Cache-Control
 *   GET  /datatables/{tableId}/rows/export     CSV streamed from the store in chunks (bounded memory); above
 *                                              EXPORT_JOB_THRESHOLD_ROWS rows, or with `Prefer: respond-async`,
 *                                              a job writing the file (202 + Location: /jobs/{id})
 *   GET  /datatables/{tableId}/rows/{rowId}    one row; ETag / 304 / Cache-Control
 *   POST /datatables/{tableId}/rows/import     multipart/form-data, part `file`: CSV streamed into the
 *                                              parser, or .xlsx spooled to a temp file, pre-scanned, streamed;
 *                                              over IMPORT_JOB_THRESHOLD_BYTES spooled and run as a job (202)
 *
 * The composition root mounts this router in front of the REST facade and says how to
 * authenticate (as for media uploads). Errors use the facade's shape:
 * { "error": { "code", "message", "field"?, "request_id"? } }. Documented in rest.yaml
 * (x-pylon-handler: datatables).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import express, { type Request, type Response, type Router } from 'express';
import { AppError, authedRoutes, badInput, guardMutation, guardQuery, isoSeconds, jobPrincipal, restJob, type JobRunner, type Principal } from '@pylon/kit';
import type { DataTableRow } from '../../../shared/data-table.repository.js';
import type { DataTablesRuntime } from '../../../runtime.js';
import { EXPORT_JOB_KIND, type ExportJobInput } from '../export-job.js';
import { exportRowsCsv } from '../export-rows.js';
import { getDataTable } from '../../tables/get-data-table.js';
import { fileSize, IMPORT_JOB_KIND, type ImportJobInput } from '../import-job.js';
import { IMPORT_LIMITS, importRowsCsv, type ImportResult } from '../import-rows.js';
import { importRowsXlsx, prescanXlsx } from '../import-xlsx.js';
import { getRow, listRows } from '../../rows/read-rows.js';

export interface DataTablesHttpOptions {
  /** The caller, or null when the request carries no valid credentials (401). */
  authenticate(req: Request): Promise<Principal | null>;
  /** Where .xlsx uploads are spooled before the zip pre-scan (default: the OS temp dir). */
  tmpDir?: string;
  /**
   * Imports run as jobs above `thresholdBytes` (IMPORT_JOB_THRESHOLD_BYTES), spooled into `dir`;
   * absent: every import is synchronous.
   */
  jobs?: { runner: JobRunner; dir: string; thresholdBytes: number; exportThresholdRows?: number };
}

const LIST_PARAMS = new Set(['filter', 'sort', 'sortDir', 'pageSize', 'continuationToken', 'fields', 'api_key']);
const ROW_PARAMS = new Set(['fields', 'api_key']);
const NO_PARAMS = new Set(['api_key']);
const ROW_FIELDS = new Set(['id', 'sortOrder', 'data', 'updatedAt', 'version']);
/** `fields` names of earlier releases (snake_case bodies), still accepted. */
const ROW_FIELD_ALIASES: ReadonlyMap<string, string> = new Map([
  ['sort_order', 'sortOrder'],
  ['updated_at', 'updatedAt'],
]);

/** The query as single strings; unknown or repeated parameters are refused, naming them. */
function queryOf(req: Request, allowed: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.query)) {
    if (!allowed.has(k)) throw new AppError('VALIDATION_FAILED', `unknown query parameter '${k.slice(0, 50)}'`, { field: k.slice(0, 50) });
    if (typeof v !== 'string') throw new AppError('VALIDATION_FAILED', `query parameter '${k}' must be given once`, { field: k });
    if (v.length > 10_000) throw new AppError('VALIDATION_FAILED', `query parameter '${k}' is too long`, { field: k });
    out[k] = v;
  }
  return out;
}

function pageSizeOf(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d{1,4}$/.test(v) || Number(v) < 1 || Number(v) > 100)
    throw new AppError('VALIDATION_FAILED', 'pageSize must be an integer from 1 to 100', { field: 'pageSize' });
  return Number(v);
}

/** `fields`: row properties (and data.<key> to narrow the cells); null = everything. */
function fieldsOf(v: string | undefined): { props: Set<string>; cells: Set<string> | null } | null {
  if (v === undefined || v.trim() === '') return null;
  const props = new Set<string>();
  let cells: Set<string> | null = null;
  for (const raw of v.split(',')) {
    const f = ROW_FIELD_ALIASES.get(raw.trim()) ?? raw.trim();
    if (f.startsWith('data.') && f.length > 5) {
      props.add('data');
      (cells ??= new Set()).add(f.slice(5));
    } else if (ROW_FIELDS.has(f)) props.add(f);
    else
      throw new AppError('VALIDATION_FAILED', `fields: unknown field '${f.slice(0, 50)}' (known: ${[...ROW_FIELDS].join(', ')}, data.<column key>)`, {
        field: 'fields',
      });
  }
  if (props.has('data') && cells && v.split(',').some((f) => f.trim() === 'data')) cells = null;
  return { props, cells };
}

function restRow(row: DataTableRow, fields: ReturnType<typeof fieldsOf>): Record<string, unknown> {
  const all: Record<string, unknown> = { id: row.id, sortOrder: row.sortOrder, data: row.data, updatedAt: isoSeconds(row.updatedAt), version: row.rev };
  if (!fields) return all;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(all)) if (fields.props.has(k)) out[k] = all[k];
  if (fields.cells && out.data) {
    const data: Record<string, unknown> = {};
    for (const c of fields.cells) if (Object.hasOwn(row.data, c)) data[c] = row.data[c];
    out.data = data;
  }
  return out;
}

/** Weak validator of a read: the table's generation (bumped by every write) and what was asked. */
const etagOf = (tableId: string, generation: number, what: unknown) =>
  `W/"${createHash('sha256')
    .update(JSON.stringify([tableId, generation, what]))
    .digest('base64url')
    .slice(0, 27)}"`;

const matches = (header: string | undefined, etag: string) => !!header && header.split(',').some((t) => t.trim() === etag || t.trim() === '*');

function cacheHeaders(res: Response, etag: string, ttl: number | null | undefined): void {
  res.setHeader('ETag', etag);
  // Private: the answer depends on the caller's account. Without a TTL clients must revalidate (304 is cheap).
  res.setHeader('Cache-Control', ttl && ttl > 0 ? `private, max-age=${ttl}` : 'private, no-cache');
  res.setHeader('Vary', 'X-Service-ApiKey, Authorization');
}

/** Reads the multipart body, handing the `file` part to `consume` as a stream. */
function multipartFile<T>(req: Request, consume: (file: Readable, info: { filename: string; mimeType: string }) => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { files: 1, fields: 10, parts: 11, fieldSize: 10_000, fileSize: IMPORT_LIMITS.maxBytes + 1 } });
    } catch {
      return reject(new AppError('UNSUPPORTED_MEDIA_TYPE', 'send the file as multipart/form-data in a part named file', { field: 'file' }));
    }
    let job: Promise<T> | null = null;
    let failed = false;
    const fail = (e: Error) => {
      if (failed) return;
      failed = true;
      req.unpipe(bb);
      req.resume();
      if (req.complete) return reject(e);
      // The file was read but the request's last bytes may still be in flight: answering now and
      // closing would reset the client before it reads the answer. Drain briefly, then answer.
      const timer = setTimeout(() => reject(e), 2000);
      req.once('end', () => {
        clearTimeout(timer);
        reject(e);
      });
    };
    bb.on('file', (name, stream: Readable & { truncated?: boolean }, info) => {
      if (name !== 'file') {
        stream.resume();
        return fail(badInput('file', `unexpected file part '${name.slice(0, 50)}'; send the file as 'file'`));
      }
      stream.on('limit', () =>
        stream.destroy(new AppError('PAYLOAD_TOO_LARGE', `the file is larger than the ${IMPORT_LIMITS.maxBytes} bytes allowed`, { field: 'file' })),
      );
      job = consume(stream, { filename: info.filename ?? '', mimeType: info.mimeType ?? '' });
      job.then(resolve, (e: Error) => {
        stream.resume();
        fail(e);
      });
    });
    bb.on('filesLimit', () => fail(badInput('file', 'send exactly one file')));
    bb.on('partsLimit', () => fail(new AppError('PAYLOAD_TOO_LARGE', 'too many form parts', { field: 'file' })));
    bb.on('error', (e) => fail(badInput('file', `malformed multipart body: ${(e as Error).message.slice(0, 100)}`)));
    bb.on('close', () => {
      if (!job) fail(badInput('file', 'file is required (multipart part named file)'));
    });
    req.on('aborted', () => fail(badInput('file', 'the upload was interrupted')));
    req.pipe(bb);
  });
}

/** RFC 7240: the client asks for a 202 and a job rather than waiting for the answer. */
const prefersAsync = (req: Request) => (req.get('prefer') ?? '').split(/[,;]/).some((p) => p.trim().toLowerCase() === 'respond-async');

const XLSX_TYPES = new Set(['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']);
/** An uploaded part is an .xlsx workbook by its file name or its type; CSV otherwise. */
const isXlsx = (info: { filename: string; mimeType: string }) => /\.xlsx$/i.test(info.filename) || XLSX_TYPES.has(info.mimeType);

export function createDataTablesHttp(rt: DataTablesRuntime, o: DataTablesHttpOptions): Router {
  const router = express.Router();
  /** The table the path names, when the caller's account has it (NOT_FOUND otherwise). */
  const tableOf = (req: Request, principal: Principal) => getDataTable(rt.repo, principal, String(req.params.tableId));

  // A small unread body is drained (the connection stays usable); a large one is cut off.
  const authed = authedRoutes({ authenticate: o.authenticate, logger: rt.logger, what: 'data tables request', cutUnreadBodyAbove: 1024 * 1024 });

  router.get(
    '/datatables/:tableId/rows/export',
    authed(async (req, res, principal) => {
      guardQuery(principal, 'exportDataTableRows');
      queryOf(req, NO_PARAMS);
      const table = await tableOf(req, principal);
      const jobs = o.jobs;
      if (jobs?.runner.files && (prefersAsync(req) || table.rowCount > (jobs.exportThresholdRows ?? Infinity))) {
        const input: ExportJobInput = { tableId: table.id, principal: jobPrincipal(principal) };
        const job = await jobs.runner.submit(
          principal.accountId,
          principal.userId,
          EXPORT_JOB_KIND,
          input as unknown as Record<string, unknown>,
          table.rowCount,
        );
        res.status(202).setHeader('Location', `/jobs/${job.id}`).setHeader('Preference-Applied', 'respond-async');
        res.json(restJob(job, jobs.runner.files));
        return;
      }
      const csv = await exportRowsCsv(rt, principal, table.id);
      res.status(200);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${table.id.replace(/[^A-Za-z0-9_-]/g, '_')}.csv"`);
      res.setHeader('Cache-Control', 'private, no-store');
      // Backpressure: pipeline pulls the next chunk of rows only as the socket drains.
      await pipeline(csv, res).catch((e: unknown) => {
        rt.logger?.warn({ err: e }, 'data table export stopped');
        res.destroy();
      });
    }),
  );

  router.get(
    '/datatables/:tableId/rows',
    authed(async (req, res, principal) => {
      guardQuery(principal, 'dataTableRows');
      const q = queryOf(req, LIST_PARAMS);
      const pageSize = pageSizeOf(q.pageSize);
      const fields = fieldsOf(q.fields);
      if (q.sortDir !== undefined && !/^(asc|desc)$/i.test(q.sortDir))
        throw new AppError('VALIDATION_FAILED', 'sortDir must be asc or desc', { field: 'sortDir' });
      const table = await tableOf(req, principal);
      const etag = etagOf(table.id, table.generation ?? 0, ['rows', q.filter, q.sort, q.sortDir, pageSize, q.continuationToken, q.fields]);
      cacheHeaders(res, etag, table.cacheTtlSeconds);
      if (matches(req.get('if-none-match'), etag)) return void res.status(304).end();
      const page = await listRows(rt, principal, {
        tableId: table.id,
        filter: q.filter ?? null,
        sort: q.sort ?? null,
        sortDir: q.sortDir ?? null,
        pageSize: pageSize ?? null,
        continuationToken: q.continuationToken ?? null,
      });
      res.status(200).json({ data: page.data.map((r) => restRow(r, fields)), totalCount: await page.totalCount(), continuationToken: page.continuationToken });
    }),
  );

  router.get(
    '/datatables/:tableId/rows/:rowId',
    authed(async (req, res, principal) => {
      guardQuery(principal, 'dataTableRow');
      const q = queryOf(req, ROW_PARAMS);
      const fields = fieldsOf(q.fields);
      const table = await tableOf(req, principal);
      const rowId = String(req.params.rowId);
      const etag = etagOf(table.id, table.generation ?? 0, ['row', rowId, q.fields]);
      cacheHeaders(res, etag, table.cacheTtlSeconds);
      if (matches(req.get('if-none-match'), etag)) {
        // Still the caller's row? A 304 must not confirm an id that does not exist.
        await getRow(rt, principal, table.id, rowId);
        return void res.status(304).end();
      }
      res.status(200).json(restRow(await getRow(rt, principal, table.id, rowId), fields));
    }),
  );

  router.post(
    '/datatables/:tableId/rows/import',
    authed(async (req, res, principal) => {
      guardMutation(principal, 'importDataTableRows');
      queryOf(req, NO_PARAMS);
      // The table is checked before the body is read: a foreign or unknown table is a 404 at once.
      const table = await tableOf(req, principal);
      if (!req.is('multipart/form-data')) {
        req.resume();
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'POST .../rows/import takes multipart/form-data with the CSV or .xlsx file in a part named file', {
          field: 'file',
        });
      }
      const declared = Number(req.get('content-length'));
      if (Number.isFinite(declared) && declared > IMPORT_LIMITS.maxBytes + 64 * 1024)
        throw new AppError('PAYLOAD_TOO_LARGE', `the file is larger than the ${IMPORT_LIMITS.maxBytes} bytes allowed`, { field: 'file' });
      const jobs = o.jobs;
      // Large (or of unknown size): spooled, then run as a job when it is over the threshold.
      if (jobs && !(Number.isFinite(declared) && declared <= jobs.thresholdBytes)) {
        await mkdir(jobs.dir, { recursive: true, mode: 0o700 });
        const spooled = await multipartFile(req, async (file, info) => {
          const format: 'csv' | 'xlsx' = isXlsx(info) ? 'xlsx' : 'csv';
          const path = join(jobs.dir, `${randomUUID()}.${format}`);
          try {
            await pipeline(file, createWriteStream(path, { mode: 0o600 }));
          } catch (e) {
            await rm(path, { force: true });
            throw e;
          }
          return { path, format };
        });
        let handedOver = false;
        try {
          if ((await fileSize(spooled.path)) <= jobs.thresholdBytes) {
            const small =
              spooled.format === 'xlsx'
                ? await importRowsXlsx(rt, principal, table.id, spooled.path)
                : await importRowsCsv(rt, principal, table.id, createReadStream(spooled.path));
            res.status(200).json({ imported: small.imported, failed: small.failed, errors: small.errors });
            return;
          }
          // A bomb or a lying archive is refused now (400), not after a 202.
          if (spooled.format === 'xlsx') await prescanXlsx(spooled.path);
          const input: ImportJobInput = {
            tableId: table.id,
            path: spooled.path,
            format: spooled.format,
            principal: jobPrincipal(principal),
          };
          const job = await jobs.runner.submit(principal.accountId, principal.userId, IMPORT_JOB_KIND, input as unknown as Record<string, unknown>);
          handedOver = true;
          res.status(202).setHeader('Location', `/jobs/${job.id}`).json(restJob(job));
          return;
        } finally {
          if (!handedOver) await rm(spooled.path, { force: true });
        }
      }
      const result = await multipartFile(req, async (file, info): Promise<ImportResult> => {
        if (!isXlsx(info)) return importRowsCsv(rt, principal, table.id, file);
        // A zip is read from its end (central directory): spool it to a private temp file first.
        const path = join(o.tmpDir ?? tmpdir(), `pylon-import-${randomBytes(12).toString('hex')}.xlsx`);
        try {
          await pipeline(file, createWriteStream(path, { mode: 0o600 }));
          return await importRowsXlsx(rt, principal, table.id, path);
        } finally {
          await rm(path, { force: true });
        }
      });
      res.status(200).json({ imported: result.imported, failed: result.failed, errors: result.errors });
    }),
  );

  return router;
}
