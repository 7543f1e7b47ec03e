import type { InternalTokens } from '@pylon/kit';
import { createRuntimeSubgraph, type RuntimeSubgraph } from '@pylon/kit/serving';
import { capFeedResolvers } from './features/cap-feeds/resolvers.js';
import { nowPlayingResolvers } from './features/now-playing/resolvers.js';
import { overrideResolvers } from './features/overrides/resolvers.js';
import { powerResolvers } from './features/power/resolvers.js';
import { scheduleGroupResolvers } from './features/schedule-groups/resolvers.js';
import { scheduleResolvers } from './features/schedules/resolvers.js';
import { createSchedulingRuntime, type SchedulingRuntime, type SchedulingRuntimeDeps } from './runtime.js';

export type SchedulingDeps = SchedulingRuntimeDeps & { tokens: InternalTokens };

export type SchedulingSubgraph = RuntimeSubgraph<SchedulingRuntime>;

/** The scheduling subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. */
export function createSchedulingSubgraph(deps: SchedulingDeps): SchedulingSubgraph {
  return createRuntimeSubgraph('scheduling', deps.tokens, createSchedulingRuntime(deps), [
    scheduleResolvers,
    scheduleGroupResolvers,
    nowPlayingResolvers,
    overrideResolvers,
    capFeedResolvers,
    powerResolvers,
  ]);
}
