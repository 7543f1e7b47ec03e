/**
 * `npm start`: the whole service on embedded backends, with demo data on first start.
 * Prints its progress while starting, the banner once ready, a one-line error with the fix for the
 * failures an operator can fix (start/start-errors.ts), and stops with exit 0 on Ctrl-C / SIGTERM.
 */
import { join } from 'node:path';
import { createFileLogger, createLogger, forceExit, loadConfigOrExit, type Logger } from '@pylon/kit';
import { allInOneEnv } from './all-in-one.config.js';
import { lockDataDir } from './start/data-dir-lock.js';
import { friendlyStartError, logFileError } from './start/start-errors.js';
import { banner } from './start/banner.js';
import { assertPortsFree } from './start/ports-free.js';

const env = loadConfigOrExit(allInOneEnv);
// The request lines of a start (the demo's history upload alone writes ~1,500) go to a file the
// banner names; the console keeps the banner and the credentials in view: warnings and errors only.
const logFile = env.LOG_FILE ?? join(env.SIGNAGE_DATA_DIR, 'pylon.log');
const consoleLevel = ['error', 'fatal', 'silent'].includes(env.LOG_LEVEL) ? env.LOG_LEVEL : 'warn';
let logger: Logger;
try {
  logger = logFile
    ? createFileLogger({ level: env.LOG_LEVEL, consoleLevel, file: logFile, name: 'pylon' })
    : createLogger({ level: env.LOG_LEVEL, name: 'pylon' });
} catch (e) {
  // Opened here, before the try below: its catch logs, so it needs a logger.
  process.stderr.write(`${logFileError(e, logFile)}\n`);
  process.exit(1);
}
const say = (line: string) => process.stdout.write(`${line}\n`);
/** The embedded stores keep files in the data dir that one process at a time may hold. */
const embedded = env.DOCUMENTS_DRIVER === 'lmdb' || env.ANALYTICS_DRIVER === 'chdb' || env.BLOBS_DRIVER === 'local';

try {
  say(`Starting Pylon (data in ${env.SIGNAGE_DATA_DIR})`);
  if (embedded) lockDataDir(env.SIGNAGE_DATA_DIR);
  await assertPortsFree([env.PORT, env.LEGACY_PORT], env.HOST);
  // Loaded here, not imported at the top: a native engine that fails to load is answered below.
  // The stores open first, so the analytics migrations run on chDB's threads while the rest loads.
  say('  opening stores');
  const { openAllInOneBackends } = await import('./all-in-one/backends.js');
  const backends = await openAllInOneBackends(env, logger);
  say('  loading code');
  const { startAllInOne } = await import('./all-in-one.js');
  const app = await startAllInOne(env, { logger, progress: (step) => say(`  ${step}`), backends });
  say(banner(env, { ...app, ...(logFile ? { logFile } : {}) }));
  let stopping = 0;
  for (const sig of ['SIGTERM', 'SIGINT'] as const) {
    process.on(sig, () => {
      if (stopping) {
        // A second Ctrl-C stops waiting for the drain; not the copy npm forwards of the first one
        // (under `npm start` a Ctrl-C reaches this process twice: from the terminal and from npm).
        if (sig === 'SIGINT' && Date.now() - stopping > 1000) forceExit('Stopped at once');
        return;
      }
      stopping = Date.now();
      say('Stopping Pylon (Ctrl-C again to quit at once)');
      logger.info({ signal: sig }, 'shutting down');
      const force = setTimeout(() => forceExit('Pylon did not stop within 15 s; exiting'), 15000);
      force.unref();
      // Everything closed but a close step's promise was left pending (the loop ran dry): done too.
      process.once('beforeExit', () => {
        say('Pylon stopped');
        process.exit(0);
      });
      app.close().then(
        () => {
          // A clean stop loses no telemetry (producers stop before the publishers, which spool what the stream did not take): say so.
          const lost = app.telemetryLost();
          say(lost ? `Pylon stopped; ${lost} telemetry records were lost (each is logged)` : 'Pylon stopped; no telemetry lost');
          process.exit(0);
        },
        (e: unknown) => {
          logger.error({ err: e }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
} catch (e) {
  const friendly = friendlyStartError(e, env);
  if (friendly) {
    process.stderr.write(`${friendly}\n`);
    logger.debug({ err: e }, 'failed to start');
  } else {
    logger.fatal({ err: e }, 'failed to start');
  }
  process.exit(1);
}
