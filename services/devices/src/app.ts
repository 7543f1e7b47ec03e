import { createSubgraph, type DocumentStore, type InternalTokens, type Subgraph } from '@pylon/kit';
import { DeviceRepository } from './device.repository.js';
import { devicesResolvers } from './graphql/resolvers.js';

export interface DevicesDeps {
  documents: DocumentStore;
  tokens: InternalTokens;
  onlineWindowSeconds: number;
  now?: () => number;
}

/** The devices subgraph; main.ts serves it over HTTP, the all-in-one gateway calls it in-process. */
export function createDevicesSubgraph(deps: DevicesDeps): Subgraph & { repo: DeviceRepository } {
  const repo = new DeviceRepository(deps.documents);
  const subgraph = createSubgraph({
    name: 'devices',
    tokens: deps.tokens,
    resolvers: devicesResolvers({ repo, onlineWindowSeconds: deps.onlineWindowSeconds, ...(deps.now ? { now: deps.now } : {}) }),
  });
  return Object.assign(subgraph, { repo });
}
