/**
 * Distributed mode: the content subgraph as its own process. Besides /graphql it serves the
 * media uploads and files (http/media-http.ts); uploads there are authenticated by the signed
 * internal token, so only the edge (which checked the API key) can stream one in.
 */
import { INTERNAL_TOKEN_HEADER } from '@pylon/kit';
import { closingPushEvents } from '@pylon/composition/push-events';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { createContentSubgraph, type ContentSubgraph } from './app.js';
import { contentProcessEnv, contentSettings } from './config.js';
import { createHttpDataTableDirectory } from './adapters/data-table-directory.http.js';
import { createMediaHttp } from './features/media/http/media-http.js';
import { startExpirySweep } from './features/expiry/expiry-due.js';

await runSubgraphProcess({
  name: 'content',
  // The cache port brings the pub/sub that announces content changes (player manifests follow);
  // the stream carries its push events (media.ready/failed, playlist/template.changed).
  needs: ['documents', 'blobs', 'cache', 'stream'],
  env: contentProcessEnv,
  build: ({ backends, tokens, env, logger }) => {
    const push = closingPushEvents(backends, logger);
    const content = createContentSubgraph({
      documents: backends.documents!,
      blobs: backends.blobs!,
      tokens,
      urlSecret: env.SIGNAGE_INTERNAL_SECRET,
      settings: contentSettings(env),
      pubsub: backends.pubsub!,
      logger,
      ...push,
      // A template module's dataTableId must name a table of the caller's account: the datatables process answers.
      dataTables: createHttpDataTableDirectory({ datatablesUrl: env.DATATABLES_URL, tokens }),
    });
    // content.expired / content.running_empty from the stored due entries (every replica sweeps; each entry is announced once).
    // Stopped before the push-event publisher closes (onClose runs in reverse order of registration).
    backends.onClose(startExpirySweep(content.runtime));
    return content;
  },
  extend: (app, { tokens, subgraph }) => {
    app.use(createMediaHttp((subgraph as ContentSubgraph).runtime, { authenticate: (req) => tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null) }));
  },
});
