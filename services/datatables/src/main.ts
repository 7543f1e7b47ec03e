/**
 * Distributed mode: the datatables subgraph as its own process. Besides /graphql it serves the
 * plain-HTTP routers all-in-one mounts (http/datatables-http.ts: row reads with ETag, CSV/xlsx
 * import, streamed CSV export; kit's jobs-http.ts: GET/DELETE /jobs/{id}); requests there are
 * authenticated by the signed internal token, so only the edge (which checked the API key) reaches
 * them, as with content's media uploads. Imports over IMPORT_JOB_THRESHOLD_BYTES run as jobs in
 * this process (state in the documents store; unfinished ones resume at start), as in all-in-one.
 */
import { join, resolve } from 'node:path';
import type { Request } from 'express';
import { createJobsHttp, INTERNAL_TOKEN_HEADER, JobFiles, jobFileSettingsFrom, JobRunner, jobSettingsFrom } from '@pylon/kit';
import { closingPushEvents } from '@pylon/composition/push-events';
import { runSubgraphProcess } from '@pylon/composition/subgraph-process';
import { createDataTablesSubgraph } from './app.js';
import { datatablesProcessEnv } from './config.js';
import { createDataTablesHttp } from './features/import-export/http/datatables-http.js';
import { createDataTablesInternalHttp } from './features/player-rows/http/internal-http.js';

type DataTablesSubgraph = ReturnType<typeof createDataTablesSubgraph>;

let jobs: JobRunner | undefined;

await runSubgraphProcess({
  name: 'datatables',
  // The stream carries its push events (datatable.rows_changed).
  needs: ['documents', 'cache', 'blobs', 'stream'],
  env: datatablesProcessEnv,
  build: ({ backends, tokens, env, logger }) => {
    const push = closingPushEvents(backends, logger);
    // Large exports write their CSV to the blob store and hand out signed links (kit job-files.ts).
    const files = new JobFiles(backends.blobs!, backends.documents!, env.SIGNAGE_INTERNAL_SECRET, jobFileSettingsFrom(env), logger);
    jobs = new JobRunner(backends.documents!, jobSettingsFrom(env), logger, files);
    return createDataTablesSubgraph({
      documents: backends.documents!,
      cache: backends.cache!,
      // Table changes reach menu-board screens through the devices process (its long-polling pings).
      pubsub: backends.pubsub!,
      tokens,
      logger,
      jobs,
      maxTableRows: env.DATATABLE_MAX_ROWS,
      ...push,
    });
  },
  extend: (app, { tokens, subgraph, env, logger, onClose }) => {
    const runner = jobs!;
    const authenticate = (req: Request) => tokens.verify(req.get(INTERNAL_TOKEN_HEADER)).catch(() => null);
    app.use(
      createDataTablesHttp((subgraph as DataTablesSubgraph).runtime, {
        authenticate,
        jobs: {
          runner,
          dir: join(resolve(env.SIGNAGE_DATA_DIR), 'jobs'),
          thresholdBytes: env.IMPORT_JOB_THRESHOLD_BYTES,
          exportThresholdRows: env.EXPORT_JOB_THRESHOLD_ROWS,
        },
      }),
      createJobsHttp(runner, { authenticate }),
      // Other processes' calls: devices (menu-board rows for screens), content (a template's dataTableId).
      createDataTablesInternalHttp((subgraph as DataTablesSubgraph).runtime, { authenticate }),
    );
    onClose(() => runner.close());
    // Jobs a previous run left unfinished continue from their checkpoints.
    void runner.resumeAll().catch((err: unknown) => logger.error({ err }, 'unfinished jobs were not resumed'));
  },
});
