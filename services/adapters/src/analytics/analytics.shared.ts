/**
 * Shared by both analytics adapters (chDB and ClickHouse server): the session settings that make
 * the same SQL yield the same JSON, identifier checks and error wrapping. The row codec is in
 * analytics.json-codec.ts, the migration runner in analytics.migrations.ts.
 * Nothing here loads an engine, so the ClickHouse adapter never pulls in chDB's native addon.
 */
import { AppError, type ErrorCode } from '@pylon/kit/errors';
import type { SqlParams } from '@pylon/kit/ports/analytics';

/** Session/request settings both adapters apply, so the same SQL yields the same JSON. */
export const ANALYTICS_SETTINGS = {
  /** 64-bit integers as bare JSON numbers; {@link parseJsonEachRow} turns unsafe ones into strings. */
  output_format_json_quote_64bit_integers: 0,
  /** DateTime/DateTime64 as ISO 8601 with `Z` (what `new Date()` parses unambiguously). */
  date_time_output_format: 'iso',
  /** Inserted rows may carry ISO 8601 strings (`Date` objects serialise to those). */
  date_time_input_format: 'best_effort',
  /**
   * FINAL (the raw reads' replay collapse) merges rows within one partition only, and reads a
   * partition that is already one merged part without merging at all. Exact because every
   * deduplicating table partitions by a function of its sorting key, so a row and its replay
   * always share a partition (services/analytics/test/final-reads.test.ts checks every table).
   * The ingest merges closed months into one part each (services/analytics/src/workers/compaction.ts).
   */
  do_not_merge_across_partitions_select_final: 1,
} as const;

/** Per-insert settings: unknown keys in a row are an error, not silently dropped. */
export const ANALYTICS_INSERT_SETTINGS = { input_format_skip_unknown_fields: 0 } as const;

export type AnalyticsOp = 'query' | 'exec' | 'insert' | 'ping' | 'open' | 'migrate';

/** ClickHouse error codes that mean "the caller's parameter is wrong". */
export const PARAM_ERROR_CODES: ReadonlySet<number> = new Set([
  456, // UNKNOWN_QUERY_PARAMETER: placeholder without a value
  457, // BAD_QUERY_PARAMETER: value does not parse as the placeholder's type
]);

/**
 * ClickHouse error codes of a server that is busy, short of a resource or between states: the same
 * statement with the same rows can succeed later, so a caller waits and retries instead of giving
 * the rows up (src/Common/ErrorCodes.cpp names them).
 */
export const TRANSIENT_ENGINE_CODES: ReadonlySet<number> = new Set([
  3, // UNEXPECTED_END_OF_FILE: the request body was cut (a connection dropped mid-insert)
  32, // ATTEMPT_TO_READ_AFTER_EOF: the same, read side
  159, // TIMEOUT_EXCEEDED
  160, // TOO_SLOW
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  203, // NO_FREE_CONNECTION
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  225, // NO_ZOOKEEPER
  236, // ABORTED
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY: a replica that lost its Keeper session
  252, // TOO_MANY_PARTS: merges behind inserts
  285, // TOO_FEW_LIVE_REPLICAS
  286, // UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE
  319, // UNKNOWN_STATUS_OF_INSERT
  394, // QUERY_WAS_CANCELLED (the server shutting down, KILL QUERY)
  425, // SYSTEM_ERROR
  439, // CANNOT_SCHEDULE_TASK: thread pool exhausted
  473, // DEADLOCK_AVOIDED
  999, // KEEPER_EXCEPTION
]);

/**
 * Marks an analytics error as transient the way kit's stream port reads it (`transient === true`,
 * `isTransientError`): the store is busy or away, not the rows bad; the stream retries it with
 * backoff and never dead-letters because of it.
 */
export function markTransient<E extends Error>(err: E): E & { transient: true } {
  Object.defineProperty(err, 'transient', { value: true, enumerable: true, writable: false, configurable: true });
  return err as E & { transient: true };
}

/** An AppError carrying the original error as a non-enumerable `cause` (like `new Error(m, { cause })`). */
export function analyticsError(code: ErrorCode, message: string, cause: unknown, details: Record<string, unknown> = {}): AppError {
  const err = new AppError(code, message, details);
  if (cause !== undefined) {
    Object.defineProperty(err, 'cause', { value: cause, enumerable: false, writable: true, configurable: true });
  }
  return err;
}

/**
 * An engine's error with its code as the port classifies it: UNAVAILABLE and transient for
 * TRANSIENT_ENGINE_CODES (the engine busy), INTERNAL otherwise; `details.engineCode` either way.
 */
export function engineError(cause: unknown, op: AnalyticsOp, engineCode: number | undefined): AppError {
  if (engineCode !== undefined && TRANSIENT_ENGINE_CODES.has(engineCode)) {
    return markTransient(analyticsError('UNAVAILABLE', 'analytics store is busy, retry later', cause, { op, engineCode }));
  }
  return analyticsError('INTERNAL', 'analytics query failed', cause, engineCode === undefined ? { op } : { op, engineCode });
}

/**
 * A failed engine call as an AppError: paramError's when the parameters were refused (`badParam`, as
 * the client saw it, or one of PARAM_ERROR_CODES), else engineError's.
 */
export function engineFailure(cause: unknown, op: AnalyticsOp, engineCode: number | undefined, badParam = false): AppError {
  if (badParam || (engineCode !== undefined && PARAM_ERROR_CODES.has(engineCode))) return paramError(cause, op);
  return engineError(cause, op, engineCode);
}

/** The engine or its client could not be created (bad path, bad URL). */
export const openFailed = (cause: unknown): AppError => analyticsError('INTERNAL', 'analytics store could not be opened', cause, { op: 'open' });

/** BAD_USER_INPUT for a parameter the engine refused; names the parameter when the engine did. */
export function paramError(cause: unknown, op: AnalyticsOp): AppError {
  const msg = cause instanceof Error ? cause.message : String(cause);
  const m = /query parameter '([^']+)'/.exec(msg) ?? /Substitution `([^`]+)`/.exec(msg);
  const details: Record<string, unknown> = { op };
  if (m?.[1]) details.field = m[1];
  return analyticsError('BAD_USER_INPUT', 'invalid analytics query parameter', cause, details);
}

export const hasParams = (params?: SqlParams): params is SqlParams => params !== undefined && Object.keys(params).length > 0;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** Table names are spliced into `INSERT INTO <table>`, so only plain (optionally db-qualified) names pass. */
export function assertTableName(table: string): void {
  if (!IDENTIFIER.test(table)) {
    throw new AppError('BAD_USER_INPUT', 'invalid analytics table name', { field: 'table' });
  }
}

/** Drops trailing `;` and whitespace (the server client appends `FORMAT ...` to the text). */
export function trimStatement(sql: string): string {
  return sql.replace(/[\s;]+$/, '');
}

/** A closed store (the process is stopping): transient, so a batch in flight is redelivered, not dead-lettered. */
export const storeClosed = (op: AnalyticsOp): AppError => markTransient(new AppError('UNAVAILABLE', 'analytics store is closed', { op }));

/**
 * The life of one analytics store's engine calls, shared by the chDB and ClickHouse adapters:
 * `run` refuses after close, tracks each call so close can wait for it, and maps engine errors;
 * `streams` holds the cancel functions of open streams; `migrate` runs one migration at a time;
 * `close` cancels the streams, waits for every call, then releases the engine, once.
 */
export function engineCalls(toAppError: (e: unknown, op: AnalyticsOp) => AppError) {
  const inflight = new Set<Promise<unknown>>();
  const streams = new Set<() => void>();
  let closing: Promise<void> | undefined;
  let migrating: Promise<string[]> | undefined;
  return {
    streams,
    get closed(): boolean {
      return closing !== undefined;
    },
    assertOpen(op: AnalyticsOp): void {
      if (closing) throw storeClosed(op);
    },
    async run<T>(op: AnalyticsOp, call: () => Promise<T>): Promise<T> {
      if (closing) throw storeClosed(op);
      let p: Promise<T>;
      try {
        p = call();
      } catch (e) {
        throw toAppError(e, op);
      }
      inflight.add(p);
      try {
        return await p;
      } catch (e) {
        throw toAppError(e, op);
      } finally {
        inflight.delete(p);
      }
    },
    migrate(runMigrations: () => Promise<string[]>): Promise<string[]> {
      migrating ??= runMigrations().finally(() => {
        migrating = undefined;
      });
      return migrating;
    },
    close(release: () => Promise<void> | void): Promise<void> {
      closing ??= (async () => {
        for (const cancel of [...streams]) cancel();
        // Never release the engine under a running call (chdb aborts the engine).
        while (inflight.size > 0) await Promise.allSettled([...inflight]);
        await release();
      })();
      return closing;
    },
  };
}
