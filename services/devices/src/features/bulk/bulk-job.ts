/**
 * Starting a bulk job (or its dry run) and running it: the use cases behind startDeviceBulkJob,
 * deviceBulkJobResults and POST /devices/bulk (life cycle in bulk.ts; the job machinery is kit jobs.ts).
 */
import { AppError, jobPrincipal, principalOfJob, requireRule, type Job, type JobContext, type JobPrincipal, type JobRunner, type Principal } from '@pylon/kit';
import { validateCommands } from '../../domain/command.js';
import { onlineCutoff } from '../../domain/device.js';
import type { DevicesRuntime } from '../../runtime.js';
import type { Device, DeviceQuery } from '../../shared/device.repository.js';
import { applyChunk, type Prepared } from './bulk-actions.js';
import type { BulkFailure, BulkResult, BulkResultState } from './bulk-result.repository.js';
import {
  BULK_CHUNK,
  BULK_KIND,
  BULK_SCHEDULE_KIND,
  bulkAccess,
  DRY_RUN_SAMPLE,
  MAX_BULK_TARGETS,
  parseBulkInput,
  type BulkInput,
  type BulkSelector,
} from './bulk.js';

export type BulkJobDeps = DevicesRuntime;

interface BulkJobInput extends Record<string, unknown> {
  principal: JobPrincipal;
  bulk: BulkInput;
}

interface BulkCheckpoint extends Record<string, unknown> {
  /** Every target has its result document (pending or failed). */
  resolved: boolean;
  /** The chunk being applied (a restart finds it cut short). */
  inFlight: number | null;
}

export interface DryRun {
  targets: number;
  notFound: number;
  sample: Device[];
  notFoundSample: string[];
}

export type StartResult = { job: Job; dryRun: null } | { job: null; dryRun: DryRun };

const selectorQuery = (s: BulkSelector): DeviceQuery => ({ tag: s.tags, groupId: s.groupIds, where: s.where });
const narrowsBeyondIds = (s: BulkSelector) => s.tags !== null || s.groupIds !== null || (s.where !== null && s.where !== undefined);

/** The selector's targets, in order (an id list: its order; else id order), and the ids of the list not found. */
async function resolveTargets(rt: BulkJobDeps, tenant: string, s: BulkSelector): Promise<{ targets: string[]; notFound: string[] }> {
  const cutoff = () => onlineCutoff(rt.now(), rt.settings.onlineWindowSeconds);
  if (s.ids === null) return { targets: await rt.repo.selectIds(tenant, s.all ? {} : selectorQuery(s), cutoff), notFound: [] };
  // By key, a slice at a time: the cost follows the list, not the fleet.
  const exists = new Set<string>();
  for (let i = 0; i < s.ids.length; i += BULK_CHUNK) for (const d of await rt.repo.findByIds(tenant, s.ids.slice(i, i + BULK_CHUNK))) exists.add(d.id);
  // With other criteria too, the list is narrowed by them (a listed device they do not match is not found for this selector).
  const matching = narrowsBeyondIds(s) ? new Set(await rt.repo.selectIds(tenant, selectorQuery(s), cutoff)) : exists;
  const targets: string[] = [];
  const notFound: string[] = [];
  for (const id of s.ids) (exists.has(id) && matching.has(id) ? targets : notFound).push(id);
  return { targets, notFound };
}

/** What the whole job needs checked before any device changes: commands, the group, the schedule. */
async function prepare(rt: BulkJobDeps, principal: Principal, input: BulkInput): Promise<Prepared> {
  const tenant = principal.accountId;
  switch (input.action) {
    case 'send_commands':
      return { commands: validateCommands(input.commands, await rt.repo.knownCommands(tenant)) };
    case 'move_to_group':
      try {
        return { group: await rt.repo.groupTree.groupFor(tenant, input.groupId) };
      } catch (e) {
        if (e instanceof AppError && e.code === 'NOT_FOUND') throw new AppError('BAD_USER_INPUT', e.message, { field: 'groupId' });
        throw e;
      }
    case 'assign_schedule':
    case 'unassign_schedule':
      if (!rt.schedules) throw new AppError('UNAVAILABLE', 'schedule assignment is not available in this deployment (no scheduling link)');
      await rt.schedules.check(principal, input.scheduleId!);
      return {};
    default:
      return {};
  }
}

/** Checks the caller's policies for the action, then counts (dry run) or queues the job. */
export async function startBulkJob(rt: BulkJobDeps, principal: Principal, raw: unknown): Promise<StartResult> {
  const { dryRun, ...input } = parseBulkInput(raw);
  const access = bulkAccess(input.action);
  requireRule(principal, access.edit);
  await prepare(rt, principal, input);
  const tenant = principal.accountId;
  if (dryRun) {
    const { targets, notFound } = await resolveTargets(rt, tenant, input.selector);
    const sample = (await rt.repo.findByIds(tenant, targets.slice(0, DRY_RUN_SAMPLE))).sort((a, b) => targets.indexOf(a.id) - targets.indexOf(b.id));
    return { job: null, dryRun: { targets: targets.length, notFound: notFound.length, sample, notFoundSample: notFound.slice(0, DRY_RUN_SAMPLE) } };
  }
  if (!rt.jobs) throw new AppError('UNAVAILABLE', 'this devices process runs no jobs');
  const job = await rt.jobs.submit(tenant, principal.userId, access.kind, { principal: jobPrincipal(principal), bulk: input } satisfies BulkJobInput);
  return { job, dryRun: null };
}

/** The job's handler: resolve once (results seeded), then apply chunk after chunk from the pending results. */
async function runBulkJob(rt: BulkJobDeps, ctx: JobContext): Promise<Record<string, unknown>> {
  const { principal: p, bulk } = ctx.job.input as BulkJobInput;
  const principal = principalOfJob(p);
  const tenant = principal.accountId;
  const jobId = ctx.job.id;
  let checkpoint = (ctx.job.checkpoint as BulkCheckpoint | null) ?? { resolved: false, inFlight: null };
  let { rowsDone: done, rowsFailed: failedCount, rowsTotal: total } = ctx.job.progress;
  const prepared = await prepare(rt, principal, bulk);
  if (!checkpoint.resolved) {
    await rt.bulkResults.clear(tenant, jobId);
    const { targets, notFound } = await resolveTargets(rt, tenant, bulk.selector);
    if (targets.length > MAX_BULK_TARGETS)
      throw new AppError('BAD_USER_INPUT', `the selector matches ${targets.length} devices; one job takes at most ${MAX_BULK_TARGETS}`, { field: 'selector' });
    await rt.bulkResults.seed(tenant, jobId, targets, notFound, BULK_CHUNK);
    checkpoint = { resolved: true, inFlight: null };
    done = failedCount = notFound.length;
    total = targets.length + notFound.length;
    await ctx.report({
      progress: { rowsTotal: total, rowsDone: done, rowsFailed: failedCount },
      errors: notFound.slice(0, 100).map((id, k) => ({ line: targets.length + k + 1, field: 'deviceId', error: `device '${id.slice(0, 100)}' was not found` })),
      checkpoint,
    });
  }
  for (let chunk = await rt.bulkResults.nextPending(tenant, jobId); chunk; chunk = await rt.bulkResults.nextPending(tenant, jobId)) {
    let outcomes: Array<BulkFailure | null>;
    if (checkpoint.inFlight === chunk.chunk && bulk.action === 'send_commands') {
      // Commands of a chunk a restart cut short may be queued already: never sent twice.
      const failure = { error: 'interrupted by a restart; not sent again (a repeated command is worse than a lost one)', code: 'INTERRUPTED' };
      outcomes = chunk.deviceIds.map(() => failure);
    } else {
      checkpoint = { resolved: true, inFlight: chunk.chunk };
      await ctx.report({ checkpoint });
      const applied = await applyChunk(rt, principal, bulk, prepared, chunk.deviceIds);
      outcomes = chunk.deviceIds.map((id) => {
        const o = applied.get(id);
        return !o ? { error: 'no outcome', code: 'INTERNAL' } : o.ok ? null : { error: o.error, code: o.code };
      });
    }
    await rt.bulkResults.settle(tenant, chunk.id, outcomes);
    const errors = outcomes.flatMap((o, k) =>
      o ? [{ line: chunk.first + k + 1, field: 'deviceId', error: `device '${chunk.deviceIds[k]!.slice(0, 100)}': ${o.error}` }] : [],
    );
    done += outcomes.length;
    failedCount += errors.length;
    checkpoint = { resolved: true, inFlight: null };
    await ctx.report({ progress: { rowsDone: done, rowsFailed: failedCount }, errors, checkpoint });
  }
  return { action: bulk.action, total: total ?? done, succeeded: done - failedCount, failed: failedCount };
}

/** Registers both kinds with the process's job runner (tags, groups, commands; schedules: scheduling's policies). */
export function registerBulkJobs(runner: JobRunner, rt: DevicesRuntime): void {
  for (const kind of [BULK_KIND, BULK_SCHEDULE_KIND]) {
    const access = kind === BULK_KIND ? bulkAccess('add_tags') : bulkAccess('assign_schedule');
    runner.register(kind, (ctx) => runBulkJob(rt, ctx), { view: access.view, edit: access.edit });
  }
}

/** A job's per-device results in target order (null when the job is not the caller's or not a bulk job). */
export async function bulkJobResults(
  rt: BulkJobDeps,
  principal: Principal,
  jobId: string,
  q: { state?: BulkResultState | null; limit?: number | null; offset?: number | null },
): Promise<BulkResult[] | null> {
  if (!rt.jobs) return null;
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new AppError('BAD_USER_INPUT', 'limit must be between 1 and 1000', { field: 'limit' });
  if (!Number.isInteger(offset) || offset < 0) throw new AppError('BAD_USER_INPUT', 'offset must be 0 or more', { field: 'offset' });
  let job: Job;
  try {
    job = await rt.jobs.get(principal.accountId, jobId);
  } catch (e) {
    if (e instanceof AppError && e.code === 'NOT_FOUND') return null;
    throw e;
  }
  // Another kind of job (an import) is not a bulk job: null, before its own policies are asked.
  if (job.kind !== BULK_KIND && job.kind !== BULK_SCHEDULE_KIND) return null;
  await rt.jobs.read(principal, job.id);
  return rt.bulkResults.list(principal.accountId, job.id, { state: q.state ?? null, limit, offset });
}
