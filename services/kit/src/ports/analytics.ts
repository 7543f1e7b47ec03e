/**
 * Analytics port: an append-mostly columnar store spoken to in ClickHouse SQL.
 * Embedded adapter: chDB (in-process ClickHouse, one data dir per process).
 * Scaled adapter: ClickHouse server through @clickhouse/client.
 * The same SQL text and the same numbered migrations (kit/migrations/analytics/*.sql, analytics-schema.ts) serve both;
 * parameters use ClickHouse's server-side binding syntax `{name:Type}`.
 */
export type SqlParams = Record<string, string | number | boolean | null | string[] | number[]>;

/** Options of one insert. */
export interface InsertOptions {
  /**
   * Makes a retried insert of the same rows a no-op: the store keeps the tokens of recent inserts
   * per table (migration 005 sets the window) and skips a block whose token it has seen, in the
   * table and in every rollup a materialized view feeds from it. Give the same token only for the
   * same rows, in the same order.
   */
  deduplicationToken?: string;
}

/** Options of one migration run. */
export interface MigrateOptions {
  /**
   * Awaited before every statement (before the one call of a store that runs a whole script at
   * once); a rejection stops the run there, with nothing more sent. The migration lease checks here
   * that it is still held, so a holder that lost it stops before its next statement.
   */
  beforeStatement?: () => Promise<void>;
}

/**
 * Errors: every method rejects with an AppError whose `details.engineCode` is the engine's error
 * code when it gave one. The store classifies them for the callers that retry (the ingest):
 * - transient (`transient: true`, kit's `isTransientError`; code UNAVAILABLE): the store is busy or
 *   away, and the same call with the same rows can succeed later: overload (too many simultaneous
 *   queries, too many parts, memory limit, timeouts, Keeper/replica trouble; the list is
 *   TRANSIENT_ENGINE_CODES in services/adapters/src/analytics/analytics.shared.ts), the connection (refused, reset, timed
 *   out) and a store being closed. Retry with backoff; never give the rows up for it.
 * - permanent (no `transient`): the rows or the statement are refused (bad data, bad SQL, unknown
 *   table, credentials); BAD_USER_INPUT for a bad query parameter, INTERNAL otherwise.
 * A statement or insert resolves only when the engine completed it: an exception the server wrote
 * after its response headers (a 200 with progress headers) rejects like any other.
 */
export interface AnalyticsStore {
  /** Applies pending numbered migrations once, in order; records them in `schema_migrations`. */
  migrate(options?: MigrateOptions): Promise<string[]>;
  /** Inserts rows (objects keyed by column) as one batch (JSONEachRow). */
  insert(table: string, rows: Record<string, unknown>[], options?: InsertOptions): Promise<void>;
  /** Runs a SELECT and returns its rows (JSONEachRow; 64-bit integers come back as numbers when safe). */
  query<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
  /**
   * Runs a SELECT and yields its rows in chunks (each an array of rows shaped as `query` returns
   * them), reading at most one chunk ahead of the consumer, so memory stays bounded whatever the
   * result size. Breaking out of the loop, an error, `signal` aborting or `close()`
   * cancels the query. Parameter and SQL errors surface on the first iteration.
   */
  queryStream<T = Record<string, unknown>>(sql: string, params?: SqlParams, opts?: { signal?: AbortSignal }): AsyncIterable<T[]>;
  /** Runs a statement that returns nothing (DDL, OPTIMIZE, ...). */
  exec(sql: string, params?: SqlParams): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
