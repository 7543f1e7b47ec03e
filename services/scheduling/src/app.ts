import { createSubgraph, type InternalTokens, type Subgraph } from '@pylon/kit';
import { schedulingResolvers } from './graphql/resolvers.js';
import { createSchedulingRuntime, type SchedulingRuntime, type SchedulingRuntimeDeps } from './runtime.js';
import type { ScheduleRepository } from './repositories/schedule.repository.js';

export interface SchedulingDeps extends SchedulingRuntimeDeps {
  tokens: InternalTokens;
}

export type SchedulingSubgraph = Subgraph & { repo: ScheduleRepository; runtime: SchedulingRuntime };

/** The scheduling subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. */
export function createSchedulingSubgraph(deps: SchedulingDeps): SchedulingSubgraph {
  const runtime = createSchedulingRuntime(deps);
  const subgraph = createSubgraph({ name: 'scheduling', tokens: deps.tokens, resolvers: schedulingResolvers(runtime) });
  return Object.assign(subgraph, { repo: runtime.repo, runtime });
}
