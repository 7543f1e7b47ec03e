/** Distributed mode: the devices subgraph as its own process, serving the player API beside /graphql. */
import { createLogger, envInt } from '@pylon/kit';
import { runSubgraphProcess } from '@pylon/kit/composition/subgraph-process';
import { createDevicesSubgraph, type DevicesSubgraph } from './app.js';
import { createPlayerApi } from './player/player-api.js';

await runSubgraphProcess({
  name: 'devices',
  needs: ['documents', 'cache', 'stream', 'blobs'],
  env: {
    DEVICE_ONLINE_WINDOW_SECONDS: envInt(600, 10, 86400),
    DEVICE_COMMAND_TTL_SECONDS: envInt(86_400, 60, 30 * 86_400),
    DEVICE_SWEEP_SECONDS: envInt(60, 0, 3600),
    DEVICE_SNAP_MAX_BYTES: envInt(2_000_000, 10_000, 50_000_000),
    DEVICE_PING_MAX_WAIT_SECONDS: envInt(30, 0, 300),
  },
  build: ({ backends, tokens, env }) => {
    const devices = createDevicesSubgraph({
      documents: backends.documents!,
      tokens,
      onlineWindowSeconds: env.DEVICE_ONLINE_WINDOW_SECONDS,
      blobs: backends.blobs!,
      pubsub: backends.pubsub!,
      cache: backends.cache!,
      stream: backends.stream!,
      logger: createLogger({ level: env.LOG_LEVEL, name: 'devices' }),
      settings: {
        commandTtlSeconds: env.DEVICE_COMMAND_TTL_SECONDS,
        sweepIntervalSeconds: env.DEVICE_SWEEP_SECONDS,
        maxSnapBytes: env.DEVICE_SNAP_MAX_BYTES,
        maxPingWaitSeconds: env.DEVICE_PING_MAX_WAIT_SECONDS,
      },
    });
    // Closed before the backends it uses (onClose runs first, in reverse order of registration).
    backends.onClose(() => devices.runtime.close());
    // Long-polls answer at once on shutdown, so draining the server does not wait for them.
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => devices.runtime.releaseWaiters());
    return devices;
  },
  extend: (app, { subgraph }) => {
    app.use(createPlayerApi((subgraph as DevicesSubgraph).runtime));
  },
});
