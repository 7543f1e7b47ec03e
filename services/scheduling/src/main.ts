/**
 * Distributed mode: the scheduling subgraph as its own process. Besides /graphql it serves the
 * player manifests the devices process asks for (http/manifest-http.ts, internal token only), keeps
 * the per-device manifest versions in the cache port (Redis with CACHE_DRIVER=redis, shared by
 * replicas), and listens for content and device changes on the pub/sub port to drop them.
 */
import { createAuditSink } from '@pylon/composition/audit-sink';
import { closingPushEvents } from '@pylon/composition/push-events';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { createSchedulingSubgraph, type SchedulingSubgraph } from './app.js';
import { schedulingProcessEnv } from './config.js';
import { createHttpAccountDirectory, createHttpContentDirectory, createHttpDeviceDirectory } from './adapters/directories.http.js';
import { createManifestHttp } from './features/player-manifest/http/manifest-http.js';
import { createOffWindowsHttp } from './features/power/http/off-windows-http.js';
import { createAssignHttp } from './features/schedules/http/assign-http.js';
import { watchChanges } from './features/player-manifest/manifest-changes.js';
import { startCapPolling } from './features/cap-feeds/poll-cap-feed.js';
import { startPowerEdges } from './features/power/power-edges.js';

await runSubgraphProcess({
  name: 'scheduling',
  // The stream carries its push events (schedule.changed, now_playing.changed).
  needs: ['documents', 'cache', 'stream'],
  env: schedulingProcessEnv,
  build: async ({ backends, tokens, env, logger }) => {
    const push = closingPushEvents(backends, logger);
    // Screens' override acknowledgements are audited here (users' actions are audited at the edges).
    const audit = await createAuditSink(env, 'pylon-scheduling', logger);
    backends.onClose(() => audit.close());
    const scheduling = createSchedulingSubgraph({
      documents: backends.documents!,
      cache: backends.cache!,
      pubsub: backends.pubsub!,
      tokens,
      logger,
      audit: audit.sink,
      ...push,
      devices: createHttpDeviceDirectory({ url: env.DEVICES_URL, tokens }),
      content: createHttpContentDirectory({ url: env.CONTENT_URL, tokens }),
      accounts: createHttpAccountDirectory({ url: env.IDENTITY_URL, tokens }),
      capFeedAllowList: env.CAP_FEED_ALLOW_LIST,
    });
    // Content and device changes announced by the other processes drop the affected devices' versions.
    const unwatch = await watchChanges(scheduling.runtime, backends.pubsub!);
    backends.onClose(unwatch);
    // CAP alert feeds are polled by every replica; each due feed is taken by one (cap-feeds/poll-cap-feed.ts).
    const stopCapPolling = startCapPolling(scheduling.runtime);
    backends.onClose(async () => stopCapPolling());
    // display_on / display_off at power schedule edges (stored, so a restart resumes them).
    backends.onClose(startPowerEdges(scheduling.runtime));
    return scheduling;
  },
  extend: (app, { tokens, subgraph }) => {
    app.use(createManifestHttp((subgraph as SchedulingSubgraph).runtime, tokens));
    // Uptime over on-hours: the analytics process asks for the off-hours of the caller's devices.
    app.use(createOffWindowsHttp((subgraph as SchedulingSubgraph).runtime, tokens));
    // Fleet-wide bulk jobs of the devices process assign schedules through scheduling's own checks.
    app.use(createAssignHttp((subgraph as SchedulingSubgraph).runtime, tokens));
  },
});
