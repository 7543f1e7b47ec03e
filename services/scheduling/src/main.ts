/** Distributed mode: the scheduling subgraph as its own process. */
import { z } from 'zod';
import { runSubgraphProcess } from '@pylon/kit/composition/subgraph-process';
import { createSchedulingSubgraph } from './app.js';
import { createHttpAccountDirectory, createHttpContentDirectory, createHttpDeviceDirectory } from './adapters/directories.http.js';

await runSubgraphProcess({
  name: 'scheduling',
  needs: ['documents'],
  env: {
    /** The subgraphs asked about devices, playlists/templates and the account (compose/k8s service names by default). */
    DEVICES_URL: z.string().url().default('http://devices:4001'),
    CONTENT_URL: z.string().url().default('http://content:4001'),
    IDENTITY_URL: z.string().url().default('http://identity:4001'),
  },
  build: ({ backends, tokens, env }) =>
    createSchedulingSubgraph({
      documents: backends.documents!,
      tokens,
      devices: createHttpDeviceDirectory({ url: env.DEVICES_URL, tokens }),
      content: createHttpContentDirectory({ url: env.CONTENT_URL, tokens }),
      accounts: createHttpAccountDirectory({ url: env.IDENTITY_URL, tokens }),
    }),
});
