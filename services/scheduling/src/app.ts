import { createSubgraph, type DocumentStore, type InternalTokens, type Subgraph } from '@pylon/kit';
import { schedulingResolvers } from './graphql/resolvers.js';
import { ScheduleRepository } from './schedule.repository.js';

export interface SchedulingDeps {
  documents: DocumentStore;
  tokens: InternalTokens;
}

/** The scheduling subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. */
export function createSchedulingSubgraph(deps: SchedulingDeps): Subgraph & { repo: ScheduleRepository } {
  const repo = new ScheduleRepository(deps.documents);
  const subgraph = createSubgraph({ name: 'scheduling', tokens: deps.tokens, resolvers: schedulingResolvers(repo) });
  return Object.assign(subgraph, { repo });
}
