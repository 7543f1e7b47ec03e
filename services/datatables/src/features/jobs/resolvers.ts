/** GraphQL of the process's jobs (kit jobs.ts): reading one and cancelling it. */
import { AppError, isoSeconds, mutationPayload, resultFile, type Job, type JobFiles } from '@pylon/kit';
import type { DataTablesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';

/** A job's result without the internals of its file (the blob key). */
function resultView(job: Job): Record<string, unknown> | null {
  const file = resultFile(job);
  if (!file || !job.result) return job.result;
  return { ...job.result, file: { filename: file.filename, contentType: file.contentType, bytes: file.bytes, keptUntil: file.expiresAt } };
}

/** A job as GraphQL answers it (kit jobs.ts record; state in SCREAMING_CASE; a file's signed link). */
function jobView(job: Job, files: JobFiles | undefined) {
  const link = files?.link(job) ?? null;
  return {
    id: job.id,
    kind: job.kind,
    state: job.state.toUpperCase() as 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED',
    progress: job.progress,
    errors: job.errors,
    result: resultView(job),
    resultLink: link
      ? { url: link.url, expiresOn: isoSeconds(link.expiresAt), filename: link.filename, contentType: link.contentType, bytes: link.bytes }
      : null,
    error: job.error,
    createdOn: isoSeconds(job.createdAt),
    startedOn: job.startedAt ? isoSeconds(job.startedAt) : null,
    finishedOn: job.finishedAt ? isoSeconds(job.finishedAt) : null,
    link: `/jobs/${job.id}`,
  };
}

export function jobResolvers(rt: DataTablesRuntime): Resolvers {
  const jobs = () => {
    if (!rt.jobs) throw new AppError('NOT_FOUND', 'this service runs no jobs', { field: 'id' });
    return rt.jobs;
  };
  return {
    Query: {
      job: async (_, args, ctx) => jobView(await jobs().read(ctx.principal, args.id), rt.jobs?.files),
    },
    Mutation: {
      cancelJob: (_, a, ctx) => mutationPayload(async () => ({ job: jobView(await jobs().cancelAs(ctx.principal, a.id), rt.jobs?.files) })),
    },
  };
}
