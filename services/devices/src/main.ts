/** Distributed mode: the devices subgraph as its own process. */
import { envInt } from '@pylon/kit';
import { runSubgraphProcess } from '@pylon/kit/composition/subgraph-process';
import { createDevicesSubgraph } from './app.js';

await runSubgraphProcess({
  name: 'devices',
  needs: ['documents'],
  env: { DEVICE_ONLINE_WINDOW_SECONDS: envInt(600, 10, 86400) },
  build: ({ backends, tokens, env }) =>
    createDevicesSubgraph({ documents: backends.documents!, tokens, onlineWindowSeconds: env.DEVICE_ONLINE_WINDOW_SECONDS }),
});
