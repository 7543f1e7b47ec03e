/**
 * The start failures an operator can fix, as one line naming the fix (instead of a fatal JSON log
 * line with a stack trace): a port in use, a data dir another Pylon holds, a native engine that
 * does not load. Anything else is `undefined` and logged as before.
 */
import { DataDirLocked } from './data-dir-lock.js';

export interface StartSettings {
  PORT: number;
  LEGACY_PORT: number;
  METRICS_PORT?: number | undefined;
  SIGNAGE_DATA_DIR: string;
}

const PNPM = 'npx --yes pnpm@10.34.8';

/** Each engine, how its failure shows (a path inside its package), and the scaled alternative. */
const ENGINES = [
  { name: 'lmdb', what: 'the embedded documents store', instead: 'DOCUMENTS_DRIVER=mongo MONGO_URL=mongodb://...' },
  { name: 'chdb', what: 'the embedded analytics store', instead: 'ANALYTICS_DRIVER=clickhouse CLICKHOUSE_URL=http://...' },
];
const NATIVE_FAILURE = /No native build was found|ERR_DLOPEN_FAILED|Cannot find module|\.node\b|invalid ELF header|GLIBC_|cannot open shared object/;

/** An error and its causes, first to last (at most 10). */
export function chain(e: unknown): Array<Error & { code?: string; port?: number; syscall?: string }> {
  const out: Array<Error & { code?: string; port?: number }> = [];
  // Duck-typed: errors from another realm (a vm context, a worker) are not `instanceof Error` here.
  const isError = (x: unknown): x is Error => typeof x === 'object' && x !== null && typeof (x as Error).message === 'string';
  for (let cur = e, i = 0; isError(cur) && i < 10; cur = (cur as { cause?: unknown }).cause, i++) out.push(cur);
  return out;
}

export function friendlyStartError(e: unknown, env: StartSettings): string | undefined {
  const errors = chain(e);
  const locked = errors.find((x): x is DataDirLocked => x instanceof DataDirLocked);
  if (locked) {
    return (
      `Another Pylon (process ${locked.pid}) is already running on the data dir ${env.SIGNAGE_DATA_DIR}. ` +
      `Stop it first, or give this one its own data: SIGNAGE_DATA_DIR=./data2 npm start`
    );
  }
  const inUse = errors.find((x) => x.code === 'EADDRINUSE');
  if (inUse) {
    const port = inUse.port ?? env.PORT;
    const setting = port === env.LEGACY_PORT ? 'LEGACY_PORT' : port === env.METRICS_PORT ? 'METRICS_PORT' : 'PORT';
    const taken = new Set([env.PORT, env.LEGACY_PORT, env.METRICS_PORT]);
    let free = port + 1;
    while (taken.has(free)) free++;
    return (
      `Port ${port} (${setting}) is already in use, by another Pylon or another server. ` +
      `Stop that process, or choose another port: ${setting}=${free} npm start`
    );
  }
  for (const x of errors) {
    const text = `${x.message}\n${x.stack ?? ''}`;
    if (!(x.code === 'ERR_DLOPEN_FAILED' || NATIVE_FAILURE.test(x.message))) continue;
    const engine = ENGINES.find((g) => text.includes(`/${g.name}/`) || text.includes(`/${g.name}@`) || x.message.includes(`'${g.name}'`));
    if (!engine) continue;
    const first = x.message.split('\n')[0]!.slice(0, 200);
    return (
      `The native engine ${engine.name} (${engine.what}) could not be loaded on this machine (${first}). ` +
      `Reinstall it with \`${PNPM} install --force\`, or use a server instead: ${engine.instead} npm start`
    );
  }
  return undefined;
}

/** The log file could not be opened (an unwritable data dir or LOG_FILE): the file, why, and the console instead. */
export function logFileError(e: unknown, file: string): string {
  const why = (e as { code?: unknown } | null)?.code ?? (e instanceof Error ? e.message : String(e));
  return `cannot write the log file ${file}: ${String(why)}; LOG_FILE= logs to the console`;
}
