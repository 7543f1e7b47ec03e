/**
 * Heavy work as jobs: imports over a size threshold (and, later, report exports) run in the
 * background of the process that accepted them, their state kept in the documents store so that a
 * client can follow them (GET /jobs/{id}, GraphQL `job`) and a restart picks them up again.
 *
 *   submit ──> queued ──> running ──> succeeded
 *                 ^          │  └───> failed     (the handler threw; `error` says why)
 *                 │          └──────> cancelled  (cancel() while queued or running)
 *                 └─ restart: a job found queued or running is queued again and its handler is
 *                    called with the checkpoint it last saved (resume), so handlers must be
 *                    idempotent from a checkpoint (the import skips the lines it committed).
 *
 * Invariants: every read and write is scoped to the job's account (documents port tenant); at
 * most `maxPerAccount` jobs of one account are queued or running at once (more: RATE_LIMITED,
 * 429); at most `workers` jobs run at once in this process; at most MAX_JOB_ERRORS row errors are
 * kept per job. The ids of unfinished jobs are also listed under a system tenant, the only
 * cross-account read (to find them again after a restart).
 */
import { randomUUID } from 'node:crypto';
import { requireRule, type Requirement } from '../auth/access.js';
import type { Principal } from '../auth/principal.js';
import { POLICIES } from '../auth/policies.js';
import { envInt } from '../config.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Collection, DocumentStore, Stored } from '../ports/documents.js';
import type { JobFiles } from './job-files.js';

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export const FINISHED: ReadonlySet<JobState> = new Set(['succeeded', 'failed', 'cancelled']);
/** Row errors kept per job (the first ones). */
export const MAX_JOB_ERRORS = 100;

export interface JobRowError {
  /** The line (CSV) or row number (xlsx) of the record. */
  line: number;
  error: string;
  field: string | null;
}

export interface JobProgress {
  rowsDone: number;
  /** Null until known (a CSV's rows are counted as it is read). */
  rowsTotal: number | null;
  rowsFailed: number;
}

export interface JobRecord {
  kind: string;
  state: JobState;
  /** Who submitted it (the handler acts for them). */
  userId: string;
  progress: JobProgress;
  errors: JobRowError[];
  /** What the handler needs to run, JSON (e.g. the table id and the spooled file). */
  input: Record<string, unknown>;
  /** The handler's last checkpoint, JSON (where a resume starts). */
  checkpoint: Record<string, unknown> | null;
  /** What a finished job produced, JSON (e.g. counts; a download path). */
  result: Record<string, unknown> | null;
  /** Why it failed. */
  error: string | null;
  cancelRequested: boolean;
  /**
   * What reading and cancelling it require, copied from its kind at submit, so that a process that
   * does not run this kind (distributed: the datatables process answering GET /jobs/{id} for a
   * report export) still applies the right policies. Absent on older records: the kind's, if known.
   */
  access?: { view: Requirement; edit: Requirement };
  startedAt: string | null;
  finishedAt: string | null;
}

export type Job = Stored<JobRecord>;

/** What a handler gets: its job, and the ways to report and to notice cancellation. */
export interface JobContext {
  job: Job;
  /** Saves progress, new row errors (kept up to MAX_JOB_ERRORS) and a checkpoint; throws JobCancelled once cancel() was asked. */
  report(update: { progress?: Partial<JobProgress>; errors?: JobRowError[]; checkpoint?: Record<string, unknown> }): Promise<void>;
  /** True once cancel() was asked (checked by report() too). */
  cancelled(): boolean;
}

export type JobHandler = (ctx: JobContext) => Promise<Record<string, unknown>>;

export interface JobAccess {
  view: Requirement;
  edit: Requirement;
  /** Frees what the job held (e.g. its spooled upload) once it is finished, whichever way. */
  cleanup?: (job: Job) => Promise<unknown>;
}

export class JobCancelled extends Error {
  constructor() {
    super('the job was cancelled');
  }
}

export interface JobSettings {
  /** Jobs one account may have queued or running at once (JOBS_MAX_PER_ACCOUNT). */
  maxPerAccount: number;
  /** Jobs this process runs at once (JOBS_WORKERS). */
  workers: number;
}

export const DEFAULT_JOB_SETTINGS: JobSettings = { maxPerAccount: 2, workers: 1 };

const JOBS = { name: 'jobs', indexes: [{ name: 'state', fields: ['state'] }] };
/** Unfinished jobs across accounts, under one system tenant: { id: jobId, tenant }. */
const ACTIVE = { name: 'jobsActive' };
const SYSTEM_TENANT = '_system';

/** The job machinery of one process (one per composition root; any module registers handlers). */
export class JobRunner {
  private readonly jobs: Collection<JobRecord>;
  private readonly active: Collection<{ tenant: string }>;
  private readonly handlers = new Map<string, { run: JobHandler; access: JobAccess }>();
  private readonly queue: Array<{ tenant: string; id: string }> = [];
  private readonly cancelled = new Set<string>();
  private running = 0;
  private closed = false;
  private readonly idle = new Set<Promise<void>>();

  constructor(
    store: DocumentStore,
    private readonly settings: JobSettings = DEFAULT_JOB_SETTINGS,
    private readonly logger?: Logger,
    /** Where jobs that produce a file (exports) write it, and how its download link is signed. */
    readonly files?: JobFiles,
  ) {
    this.jobs = store.collection<JobRecord>(JOBS);
    this.active = store.collection<{ tenant: string }>(ACTIVE);
  }

  /** `access`: what reading and cancelling a job of this kind requires (the policies of the work it does). */
  register(kind: string, handler: JobHandler, access: JobAccess): void {
    if (this.handlers.has(kind)) throw new Error(`job kind '${kind}' is registered twice`);
    this.handlers.set(kind, { run: handler, access });
  }

  /** The caller's job, when their policies allow reading jobs of its kind (GET /jobs/{id}, GraphQL job). */
  async read(principal: Principal, id: string): Promise<Job> {
    const job = await this.get(principal.accountId, id);
    requireRule(principal, job.access?.view ?? this.handlers.get(job.kind)?.access.view ?? 'Administrator');
    return job;
  }

  /** Cancels the caller's job, when their policies allow the work it does (DELETE /jobs/{id}, GraphQL cancelJob). */
  async cancelAs(principal: Principal, id: string): Promise<Job> {
    const job = await this.get(principal.accountId, id);
    requireRule(principal, job.access?.edit ?? this.handlers.get(job.kind)?.access.edit ?? 'Administrator');
    return this.cancel(principal.accountId, id);
  }

  /** Queues a job for `tenant`; RATE_LIMITED when the account already has its maximum of unfinished jobs. */
  async submit(tenant: string, userId: string, kind: string, input: Record<string, unknown>, rowsTotal: number | null = null): Promise<Job> {
    const handler = this.handlers.get(kind);
    if (!handler) throw new Error(`no handler for job kind '${kind}'`);
    const unfinished = await this.jobs.count(tenant, { state: { $in: ['queued', 'running'] } });
    if (unfinished >= this.settings.maxPerAccount) {
      throw new AppError(
        'RATE_LIMITED',
        `this account already has ${unfinished} job(s) queued or running (at most ${this.settings.maxPerAccount}, JOBS_MAX_PER_ACCOUNT); wait for one to finish or cancel it`,
        { retryAfter: 10 },
      );
    }
    const id = randomUUID();
    const job = await this.jobs.insert(tenant, {
      id,
      kind,
      state: 'queued',
      userId,
      progress: { rowsDone: 0, rowsTotal, rowsFailed: 0 },
      errors: [],
      input,
      checkpoint: null,
      result: null,
      error: null,
      cancelRequested: false,
      access: { view: handler.access.view, edit: handler.access.edit },
      startedAt: null,
      finishedAt: null,
    });
    await this.active.insert(SYSTEM_TENANT, { id, tenant });
    this.enqueue(tenant, id);
    return job;
  }

  /** The job, when it is `tenant`'s; NOT_FOUND otherwise (another account's id answers the same). */
  async get(tenant: string, id: string): Promise<Job> {
    const job = await this.jobs.findById(tenant, id);
    if (!job) throw new AppError('NOT_FOUND', `job '${id.slice(0, 100)}' was not found`, { field: 'id' });
    return job;
  }

  /** Asks the job to stop: a queued job is cancelled at once, a running one at its next report. */
  async cancel(tenant: string, id: string): Promise<Job> {
    const job = await this.get(tenant, id);
    if (FINISHED.has(job.state)) return job;
    this.cancelled.add(id);
    const updated = await this.jobs.update(tenant, id, { $set: { cancelRequested: true } });
    if (job.state === 'queued') return this.finish(tenant, id, 'cancelled', { error: 'cancelled before it started' });
    return updated ?? job;
  }

  /** Queues again every job a previous run of the process left queued or running, and starts the result sweep (call once at start). */
  async resumeAll(): Promise<number> {
    this.files?.start();
    const left = await this.active.find(SYSTEM_TENANT, {}, { limit: 10_000 });
    for (const a of left) {
      const job = await this.jobs.findById(a.tenant, a.id);
      if (!job || FINISHED.has(job.state)) {
        await this.active.delete(SYSTEM_TENANT, a.id);
        continue;
      }
      // Another process's kind (distributed: devices' bulk jobs, datatables' imports): left for the process that runs it.
      if (!this.handlers.has(job.kind)) continue;
      if (job.cancelRequested) {
        await this.finish(a.tenant, a.id, 'cancelled', { error: 'cancelled' });
        continue;
      }
      await this.jobs.update(a.tenant, a.id, { $set: { state: 'queued' } });
      this.enqueue(a.tenant, a.id);
    }
    return left.length;
  }

  /** Stops taking jobs; running handlers are left to stop at their next report (their checkpoint survives). */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    this.files?.close();
    await Promise.allSettled([...this.idle]);
  }

  private enqueue(tenant: string, id: string): void {
    this.queue.push({ tenant, id });
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.running < this.settings.workers && this.queue.length) {
      const next = this.queue.shift()!;
      this.running++;
      const p = this.run(next.tenant, next.id)
        .catch((err: unknown) => this.logger?.error({ err, jobId: next.id }, 'job runner failed'))
        .finally(() => {
          this.running--;
          this.idle.delete(p);
          this.pump();
        });
      this.idle.add(p);
    }
  }

  private async finish(tenant: string, id: string, state: JobState, fields: Partial<JobRecord>): Promise<Job> {
    const job = (await this.jobs.update(tenant, id, { $set: { ...fields, state, finishedAt: new Date().toISOString() } }))!;
    await this.active.delete(SYSTEM_TENANT, id).catch(() => false);
    this.cancelled.delete(id);
    await this.handlers
      .get(job.kind)
      ?.access.cleanup?.(job)
      .catch((err: unknown) => this.logger?.warn({ err, jobId: id }, 'job cleanup failed'));
    return job;
  }

  private async run(tenant: string, id: string): Promise<void> {
    let job = await this.jobs.findById(tenant, id);
    if (!job || job.state !== 'queued') return;
    const handler = this.handlers.get(job.kind)?.run;
    if (!handler) {
      await this.finish(tenant, id, 'failed', { error: `no handler for job kind '${job.kind}'` });
      return;
    }
    job = (await this.jobs.update(tenant, id, { $set: { state: 'running', startedAt: job.startedAt ?? new Date().toISOString() } }))!;
    let current: Job = job;
    const isCancelled = () => this.cancelled.has(id) || this.closed;
    const ctx: JobContext = {
      job,
      cancelled: isCancelled,
      report: async (u) => {
        const set: Record<string, unknown> = {};
        if (u.progress) set.progress = { ...current.progress, ...u.progress };
        if (u.errors?.length && current.errors.length < MAX_JOB_ERRORS) set.errors = [...current.errors, ...u.errors].slice(0, MAX_JOB_ERRORS);
        if (u.checkpoint) set.checkpoint = u.checkpoint;
        if (Object.keys(set).length) current = (await this.jobs.update(tenant, id, { $set: set })) ?? current;
        // Cancellation asked through another replica is seen in the stored record.
        if (current.cancelRequested) this.cancelled.add(id);
        if (isCancelled()) throw new JobCancelled();
      },
    };
    try {
      const result = await handler(ctx);
      await this.finish(tenant, id, 'succeeded', { result });
    } catch (e) {
      if (e instanceof JobCancelled) {
        // Closing the process is not a cancellation: the job stays unfinished and resumes at the next start.
        if (this.closed && !this.cancelled.has(id)) return;
        await this.finish(tenant, id, 'cancelled', { error: 'cancelled' });
        return;
      }
      const message = e instanceof AppError ? e.message : 'the job failed (internal error)';
      if (!(e instanceof AppError)) this.logger?.error({ err: e, jobId: id, kind: job.kind }, 'job failed');
      await this.finish(tenant, id, 'failed', { error: message });
    }
  }
}

/** The job settings of a process's env (declared once, spread into each composition root's schema). */
export const jobsEnv = {
  /** Jobs one account may have queued or running at once; more are refused with 429. */
  JOBS_MAX_PER_ACCOUNT: envInt(DEFAULT_JOB_SETTINGS.maxPerAccount, 1, 100),
  /** Jobs this process runs at once (the others wait, queued). */
  JOBS_WORKERS: envInt(DEFAULT_JOB_SETTINGS.workers, 1, 16),
};

export const jobSettingsFrom = (env: { JOBS_MAX_PER_ACCOUNT: number; JOBS_WORKERS: number }): JobSettings => ({
  maxPerAccount: env.JOBS_MAX_PER_ACCOUNT,
  workers: env.JOBS_WORKERS,
});

/** The submitter as a job's input keeps it (JSON): the job acts as them, with the policies they had. */
export type JobPrincipal = Pick<Principal, 'accountId' | 'userId' | 'userName' | 'roles' | 'policies' | 'isOwner'>;

export const jobPrincipal = (p: Principal): JobPrincipal => ({
  accountId: p.accountId,
  userId: p.userId,
  userName: p.userName,
  roles: p.roles,
  policies: p.policies,
  isOwner: p.isOwner,
});

/** The principal a handler acts as (policies re-checked against the known list; `via: internal`). */
export const principalOfJob = (p: JobPrincipal): Principal => ({
  ...p,
  policies: p.policies.filter((x) => (POLICIES as readonly string[]).includes(x)),
  via: 'internal',
});
