/** GraphQL of fleet-wide bulk jobs: starting one (or its dry run) and reading its per-device results. */
import { mutationPayload } from '@pylon/kit';
import type { DevicesRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import type { BulkResultState } from './bulk-result.repository.js';
import { bulkJobResults, startBulkJob } from './bulk-job.js';

const upper = <S extends string>(s: S) => s.toUpperCase() as Uppercase<S>;

export function bulkResolvers(rt: DevicesRuntime): Resolvers {
  return {
    Query: {
      deviceBulkJobResults: async (_, a, ctx) => {
        const state = a.state ? (a.state.toLowerCase() as BulkResultState) : null;
        const results = await bulkJobResults(rt, ctx.principal, a.jobId, { state, limit: a.limit ?? null, offset: a.offset ?? null });
        return results?.map((r) => ({ deviceId: r.deviceId, state: upper(r.state), error: r.error, errorCode: r.errorCode })) ?? null;
      },
    },
    Mutation: {
      startDeviceBulkJob: (_, a, ctx) => {
        return mutationPayload(async () => {
          const r = await startBulkJob(rt, ctx.principal, a.input);
          return { jobId: r.job?.id ?? null, link: r.job ? `/jobs/${r.job.id}` : null, dryRun: r.dryRun };
        });
      },
    },
  };
}
