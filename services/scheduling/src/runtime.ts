/**
 * What the scheduling subgraph and the player manifest share in one process: the repository, the
 * directory ports onto the other subgraphs, the clock and the change notifications.
 */
import type { AuditSink, Cache, DocumentStore, Logger, PubSub, PushEvents } from '@pylon/kit';
import type { AccountDirectory } from './ports/account-directory.js';
import type { ContentDirectory } from './ports/content-directory.js';
import type { DeviceDirectory } from './ports/device-directory.js';
import { ScheduleRepository } from './shared/schedule.repository.js';
import { OverrideRepository } from './features/overrides/override.repository.js';
import { CapFeedRepository } from './features/cap-feeds/cap-feed.repository.js';
import { fetchFeed } from './adapters/fetch-feed.js';
import { PowerScheduleRepository } from './features/power/power-schedule.repository.js';

export interface SchedulingRuntimeDeps {
  documents: DocumentStore;
  devices: DeviceDirectory;
  accounts: AccountDirectory;
  content: ContentDirectory;
  /** Per-device manifest versions (Redis when scaled); none: computed on every ping. */
  cache?: Cache;
  /** Where changed manifests are announced (CHANNELS.manifestsChanged: waiting pings wake); none: not announced. */
  pubsub?: PubSub;
  logger?: Logger;
  /** Push events (schedule.changed, now_playing.changed); none: not produced. */
  pushEvents?: PushEvents;
  /** Where acknowledgements by screens are audited (the edges audit what users do); none: not audited. */
  audit?: AuditSink;
  now?: () => number;
  /** Addresses CAP feeds may reach although private or loopback (CAP_FEED_ALLOW_LIST: on-premise feeds, tests). */
  capFeedAllowList?: readonly string[];
}

/** The runtime keeps the directories and optional ports as given; `now` defaults to Date.now. */
export interface SchedulingRuntime extends Pick<
  SchedulingRuntimeDeps,
  'devices' | 'accounts' | 'content' | 'cache' | 'pubsub' | 'logger' | 'pushEvents' | 'audit'
> {
  repo: ScheduleRepository;
  now: () => number;
  overrides: OverrideRepository;
  /** Wake-ups at overrides' start and end instants, in this process (overrides/override-timers.ts). */
  overrideTimers: Map<string, NodeJS.Timeout[]>;
  capFeeds: CapFeedRepository;
  /** Reads a CAP feed document (outbound rules: adapters/fetch-feed.ts). */
  fetchFeed(url: string): Promise<string>;
  power: PowerScheduleRepository;
}

export function createSchedulingRuntime(deps: SchedulingRuntimeDeps): SchedulingRuntime {
  return {
    repo: new ScheduleRepository(deps.documents),
    devices: deps.devices,
    accounts: deps.accounts,
    content: deps.content,
    ...(deps.cache ? { cache: deps.cache } : {}),
    ...(deps.pubsub ? { pubsub: deps.pubsub } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.pushEvents ? { pushEvents: deps.pushEvents } : {}),
    ...(deps.audit ? { audit: deps.audit } : {}),
    now: deps.now ?? Date.now,
    overrides: new OverrideRepository(deps.documents),
    overrideTimers: new Map(),
    capFeeds: new CapFeedRepository(deps.documents),
    fetchFeed: (url) => fetchFeed(url, { allowList: deps.capFeedAllowList ?? [], timeoutMs: 10_000 }),
    power: new PowerScheduleRepository(deps.documents),
  };
}
