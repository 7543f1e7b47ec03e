/**
 * Embedded analytics adapter: chDB (ClickHouse in-process). One `Session` per store.
 *
 * chDB binds ONE data directory per process: a second store on a different path throws until the
 * first is closed (a second store on the SAME path is allowed and shares the data).
 * Parameterised queries are serialised process-wide by chdb itself (its parameter state is not
 * isolated per connection); parameter-less statements run in parallel.
 * chdb allows one streaming cursor per connection, so each `queryStream` opens a connection of its
 * own on the same data directory (chdb lets connections to one directory coexist) and closes it
 * when the stream ends: a slow consumer of one stream never blocks another stream or a query.
 */
import { Session } from 'chdb';
import type { ChdbQueryStream, ChdbResult, StreamChunk } from 'chdb';
import { AppError } from '@pylon/kit/errors';
import { inScratchDir } from '@pylon/kit/scratch';
import type { AnalyticsStore, SqlParams } from '@pylon/kit/ports/analytics';
import {
  ANALYTICS_INSERT_SETTINGS,
  ANALYTICS_SETTINGS,
  assertTableName,
  engineCalls,
  engineFailure,
  hasParams,
  openFailed,
  storeClosed,
  trimStatement,
  type AnalyticsOp,
} from '../analytics/analytics.shared.js';
import { parseJsonEachRow, toJsonEachRow } from '../analytics/analytics.json-codec.js';
import { runMigrations } from '../analytics/analytics.migrations.js';
import { deduplicationSettings } from '../analytics/analytics.deduplication.js';

export interface ChdbAnalyticsOptions {
  /** Data directory (created if absent). */
  path: string;
  /** Defaults to `services/kit/migrations/analytics/`. */
  migrationsDir?: string;
}

/** Engine settings given at connect (`--name=value`), so they hold for every query on the session. */
const CONNECTION_ARGS = Object.entries(ANALYTICS_SETTINGS).map(([k, v]) => `--${k}=${v}`);

function toAppError(e: unknown, op: AnalyticsOp): AppError {
  if (e instanceof AppError) return e;
  const err = (typeof e === 'object' && e !== null ? e : {}) as { code?: unknown; clickhouseCode?: unknown };
  // A streamed read's error (ChdbStreamError) carries the engine's code only in its message.
  const streamed = err.code === 'CHDB_STREAM' && e instanceof Error ? /^Code: (\d+)\./.exec(e.message) : null;
  const engineCode = typeof err.clickhouseCode === 'number' ? err.clickhouseCode : streamed ? Number(streamed[1]) : undefined;
  // A closed store is transient (storeClosed): a batch in flight at shutdown is redelivered.
  // (chdb's closed-session error never carries an engine code.)
  if (err.code === 'CHDB_CLOSED') return storeClosed(op);
  return engineFailure(e, op, engineCode, err.code === 'CHDB_BIND');
}

export async function createChdbAnalyticsStore(opts: ChdbAnalyticsOptions): Promise<AnalyticsStore> {
  let session: Session;
  try {
    session = new Session(opts.path, { connectionArgs: CONNECTION_ARGS });
  } catch (e) {
    throw openFailed(e);
  }

  /** Engine calls, open streams (close() cancels them before it releases the engine), migrations. */
  const calls = engineCalls(toAppError);
  const run = calls.run;

  const execute = (op: AnalyticsOp, sql: string, params: SqlParams | undefined, format: string): Promise<ChdbResult> => {
    const text = trimStatement(sql);
    return run(op, () => (hasParams(params) ? session.queryBindAsync(text, params, { format }) : session.queryAsync(text, { format })));
  };

  async function* streamRows<T>(sql: string, params: SqlParams | undefined, signal: AbortSignal | undefined): AsyncGenerator<T[]> {
    calls.assertOpen('query');
    const text = trimStatement(sql);
    let conn: Session;
    let cursor: ChdbQueryStream;
    try {
      conn = new Session(opts.path, { connectionArgs: CONNECTION_ARGS });
    } catch (e) {
      throw toAppError(e, 'query');
    }
    try {
      const streamOpts = { format: 'JSONEachRow', ...(signal ? { signal } : {}) };
      cursor = hasParams(params) ? conn.queryStreamBind(text, params, streamOpts) : conn.queryStream(text, streamOpts);
    } catch (e) {
      conn.close();
      throw toAppError(e, 'query');
    }
    // close() cancels an open stream and releases its connection at once rather than waiting for
    // the consumer (which may never ask for more); chdb defers the native teardown behind a fetch
    // still running, so this is safe mid-fetch.
    let cancelled = false;
    const cancel = () => {
      cancelled = true;
      cursor.cancel();
      conn.close();
    };
    calls.streams.add(cancel);
    // One chunk of read-ahead: the engine fetches the next chunk on its thread while this one is
    // parsed and consumed (memory: two chunks at most).
    const chunks = cursor[Symbol.asyncIterator]();
    let ahead: Promise<IteratorResult<StreamChunk>> | undefined;
    try {
      ahead = chunks.next();
      for (;;) {
        const r = await ahead;
        if (r.done) break;
        ahead = chunks.next();
        const rows = parseJsonEachRow<T>(r.value.text());
        if (rows.length > 0) yield rows;
      }
      ahead = undefined;
      // A cursor cancelled by close() just stops: say so rather than pass a cut result off as whole.
      if (cancelled) throw storeClosed('query');
    } catch (e) {
      throw toAppError(calls.closed ? storeClosed('query') : e, 'query');
    } finally {
      // A fetch still pending after an early exit settles after the cancel; nobody awaits it.
      ahead?.catch(() => undefined);
      calls.streams.delete(cancel);
      cursor.cancel();
      // Session.close() defers the native teardown behind a fetch still running on this connection.
      conn.close();
    }
  }

  const store: AnalyticsStore = {
    migrate(migrateOptions) {
      // Every pending file in one engine call (chDB runs a multi-statement query in order and stops at the first failure).
      const execScript = async (statements: readonly string[]) => {
        await run('exec', () => session.queryAsync(statements.join('\n;\n'), { format: 'TabSeparated' }));
      };
      return calls.migrate(() => runMigrations({ query: store.query, exec: store.exec, execScript }, opts.migrationsDir, migrateOptions));
    },

    async insert(table, rows, options) {
      assertTableName(table);
      if (rows.length === 0) return;
      const values = toJsonEachRow(rows);
      const settings = { ...ANALYTICS_INSERT_SETTINGS, ...deduplicationSettings(options) };
      await run('insert', () => session.insert({ table, values, format: 'JSONEachRow', settings }));
    },

    async query<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
      const result = await execute('query', sql, params, 'JSONEachRow');
      return parseJsonEachRow<T>(result.text());
    },

    queryStream<T = Record<string, unknown>>(sql: string, params?: SqlParams, o?: { signal?: AbortSignal }): AsyncIterable<T[]> {
      return { [Symbol.asyncIterator]: () => streamRows<T>(sql, params, o?.signal) };
    },

    async exec(sql, params) {
      await execute('exec', sql, params, 'TabSeparated');
    },

    async ping() {
      await execute('ping', 'SELECT 1', undefined, 'TabSeparated');
    },

    close() {
      return calls.close(() => session.close());
    },
  };
  return store;
}

/** A chDB store in a fresh temporary directory (`prefix` plus a random suffix): closing it removes the directory. */
export const createScratchChdbStore = (prefix: string): Promise<AnalyticsStore> => inScratchDir(prefix, (path) => createChdbAnalyticsStore({ path }));
