import { mergeResolvers, type InternalTokens, type Subgraph } from '@pylon/kit';
import { createSubgraph } from '@pylon/kit/serving';
import { capFeedResolvers } from './features/cap-feeds/resolvers.js';
import { nowPlayingResolvers } from './features/now-playing/resolvers.js';
import { overrideResolvers } from './features/overrides/resolvers.js';
import { powerResolvers } from './features/power/resolvers.js';
import { scheduleGroupResolvers } from './features/schedule-groups/resolvers.js';
import { scheduleResolvers } from './features/schedules/resolvers.js';
import { createSchedulingRuntime, type SchedulingRuntime, type SchedulingRuntimeDeps } from './runtime.js';
import type { ScheduleRepository } from './shared/schedule.repository.js';

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

function schedulingResolvers(rt: SchedulingRuntime) {
  return mergeResolvers(
    scheduleResolvers(rt),
    scheduleGroupResolvers(rt),
    nowPlayingResolvers(rt),
    overrideResolvers(rt),
    capFeedResolvers(rt),
    powerResolvers(rt),
  );
}
