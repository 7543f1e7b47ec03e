/**
 * Scaled analytics adapter: a ClickHouse server through @clickhouse/client (HTTP).
 * Same SQL, same migrations, same JSON shapes as the chDB adapter (settings and codec are shared).
 */
import { Readable } from 'node:stream';
import {
  createClient,
  extractErrorAtTheEndOfChunk,
  parseError,
  EXCEPTION_TAG_HEADER_NAME,
  type ClickHouseClient,
  type ClickHouseClientConfigOptions,
} from '@clickhouse/client';
import { AppError } from '@pylon/kit/errors';
import type { AnalyticsStore, SqlParams } from '@pylon/kit/ports/analytics';
import {
  ANALYTICS_INSERT_SETTINGS,
  ANALYTICS_SETTINGS,
  analyticsError,
  assertTableName,
  engineCalls,
  engineFailure,
  hasParams,
  markTransient,
  openFailed,
  storeClosed,
  trimStatement,
  type AnalyticsOp,
} from '../analytics/analytics.shared.js';
import { parseJsonEachRow, stringifyRow, toJsonEachRow } from '../analytics/analytics.json-codec.js';
import { runMigrations } from '../analytics/analytics.migrations.js';
import type { ClusterRendering } from '../analytics/analytics.cluster.js';
import { deduplicationSettings } from '../analytics/analytics.deduplication.js';

export interface ClickHouseAnalyticsOptions {
  /** e.g. `http://localhost:8123` (credentials and `?database=` in the URL are honoured too). */
  url: string;
  username?: string;
  password?: string;
  database?: string;
  /** Defaults to `services/kit/migrations/analytics/`. */
  migrationsDir?: string;
  /**
   * How long one request may take (default 10 minutes, the client's own default is 30 s): the
   * migrations' backfills and the compaction's OPTIMIZE ... FINAL of a month run for minutes on
   * real data, and a client that gives up while the server goes on would record no migration and
   * run its backfill again. Reads are capped by the server instead (QUERY_MAX_SECONDS).
   */
  requestTimeoutMs?: number;
  /**
   * A self-managed cluster (one shard, replicas, Keeper): the migrations are rendered with
   * `ON CLUSTER` and Replicated engines (kit analytics.cluster.ts). Absent: the single-node form,
   * also right for ClickHouse Cloud (docs/operations/clickhouse.md).
   */
  cluster?: ClusterRendering | undefined;
}

/** The server stops a read (query) after this long; statements (exec) and inserts are not capped. */
export const QUERY_MAX_SECONDS = 60;

/**
 * Progress headers every 110 s, as the client's guide for long-running requests asks: they keep the
 * connection busy through proxies and load balancers whose idle timeout is 120 s or more. Only on
 * the requests that can run that long (statements, inserts, streamed reads; query() is capped at
 * QUERY_MAX_SECONDS and never sees one). The first progress header sends the status line, so a
 * statement that fails after it answers 200 with the exception at the end of the body: every
 * request that carries these reads its body to the end and looks for that exception
 * ({@link trailingException}).
 */
export const PROGRESS_SETTINGS = { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '110000' } as const;

/**
 * Statements and inserts: the server holds the response until the statement ends, so one that fails
 * before the first progress header (nearly all) answers with its error status and
 * X-ClickHouse-Exception-Code. Their bodies are empty, so buffering them costs nothing.
 */
export const STATEMENT_SETTINGS = { ...PROGRESS_SETTINGS, wait_end_of_query: 1 } as const;

/** The client's settings: a long request timeout (progress headers are per request, see PROGRESS_SETTINGS). */
export function clickHouseClientConfig(opts: ClickHouseAnalyticsOptions): ClickHouseClientConfigOptions {
  const config: ClickHouseClientConfigOptions = {
    url: opts.url,
    application: 'pylon',
    request_timeout: opts.requestTimeoutMs ?? 600_000,
    clickhouse_settings: { ...ANALYTICS_SETTINGS },
    json: { stringify: stringifyRow },
  };
  if (opts.username !== undefined) config.username = opts.username;
  if (opts.password !== undefined) config.password = opts.password;
  if (opts.database !== undefined) config.database = opts.database;
  return config;
}

/** Socket-level failures: the server is not reachable, as opposed to refusing the statement. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/** How much of a statement's response body is kept to find a trailing exception in (an exception is a few KiB at most). */
const BODY_TAIL_BYTES = 64 * 1024;

/**
 * The exception a server wrote at the end of a 200 response (after progress headers went out), or
 * undefined. Servers from 25.11 frame it with the tag of the X-ClickHouse-Exception-Tag header (the
 * client's own parser reads it); older ones append `Code: N. DB::Exception: ...` as text.
 */
export function trailingException(tail: Buffer, exceptionTag: string | undefined): Error | undefined {
  if (tail.length === 0) return undefined;
  if (exceptionTag && tail.toString('latin1', Math.max(0, tail.length - exceptionTag.length - 32)).endsWith(`${exceptionTag}\r\n__exception__\r\n`)) {
    return extractErrorAtTheEndOfChunk(tail, exceptionTag);
  }
  const text = tail.toString('utf8');
  const at = text.search(/(?:^|\n)Code: \d+\. DB::Exception:/);
  return at < 0 ? undefined : parseError(text.slice(at).trim());
}

/** Reads a statement's response to its end and throws the exception it ends with, if any. */
async function statementOutcome(result: { stream: Readable; response_headers: Record<string, string | string[] | undefined> }): Promise<void> {
  let tail = Buffer.alloc(0);
  for await (const chunk of result.stream) {
    tail = Buffer.concat([tail, typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)]);
    if (tail.length > BODY_TAIL_BYTES) tail = tail.subarray(tail.length - BODY_TAIL_BYTES);
  }
  const tag = result.response_headers[EXCEPTION_TAG_HEADER_NAME];
  const err = trailingException(tail, Array.isArray(tag) ? tag[0] : tag);
  if (err) throw err;
}

/**
 * Every error leaves the adapter as an AppError. Transient ones (the server busy or away: overload,
 * too many parts, memory, timeouts, connections; TRANSIENT_ENGINE_CODES) are UNAVAILABLE and carry
 * `transient: true` (kit's isTransientError); everything else (bad rows, bad SQL, credentials,
 * unknown tables) has no `transient` and keeps its code. `details.engineCode` is the server's code.
 */
function toAppError(e: unknown, op: AnalyticsOp): AppError {
  if (e instanceof AppError) return e;
  const err = (typeof e === 'object' && e !== null ? e : {}) as { code?: unknown; name?: unknown; message?: unknown };
  const message = typeof err.message === 'string' ? err.message : '';
  // ClickHouseError (matched by shape: a server error carries its numeric code as a string).
  const engineCode = typeof err.code === 'string' && /^\d+$/.test(err.code) ? Number(err.code) : undefined;
  // The client refuses parameter values it cannot format before sending anything.
  const refusedByClient = engineCode === undefined && /query param/i.test(message);
  if (!refusedByClient && engineCode === undefined && ((typeof err.code === 'string' && NETWORK_CODES.has(err.code)) || /^Timeout error/.test(message))) {
    return markTransient(analyticsError('UNAVAILABLE', 'analytics store is unavailable', e, { op }));
  }
  return engineFailure(e, op, engineCode, refusedByClient);
}

export async function createClickHouseAnalyticsStore(opts: ClickHouseAnalyticsOptions): Promise<AnalyticsStore> {
  const config = clickHouseClientConfig(opts);
  let client: ClickHouseClient;
  try {
    client = createClient(config);
  } catch (e) {
    throw openFailed(e);
  }
  return createClickHouseAnalyticsStoreWithClient(client, { migrationsDir: opts.migrationsDir, cluster: opts.cluster });
}

/**
 * Wraps an already-built client (custom TLS/agent, or another `connection`). The store owns it:
 * `close()` closes the client. Applies the shared analytics settings on every request.
 */
export function createClickHouseAnalyticsStoreWithClient(
  client: ClickHouseClient,
  opts: { migrationsDir?: string | undefined; cluster?: ClusterRendering | undefined } = {},
): AnalyticsStore {
  /** Engine calls, open streams (close() cancels them before it releases the engine), migrations. */
  const calls = engineCalls(toAppError);
  const run = calls.run;
  const settings = { ...ANALYTICS_SETTINGS };

  /**
   * ResultSet.stream() (client source, result_set.js) splits the response body at newlines into
   * arrays of `{ text, json() }`, one array per socket chunk, and pipes the socket through that
   * transform, so reading lazily here reads the socket lazily. Each array is parsed with the shared
   * codec (exact 64-bit integers). A server error after the first bytes cannot change the status:
   * from 25.11 the client raises it from the exception tag; older servers append the exception as
   * text, which fails the JSON parse; both end the loop with an error, never a short result.
   */
  async function* streamRows<T>(sql: string, params: SqlParams | undefined, signal: AbortSignal | undefined): AsyncGenerator<T[]> {
    calls.assertOpen('query');
    const abort = new AbortController();
    const onAbort = () => {
      abort.abort();
      rs?.close();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let cancelled = false;
    let completed = false;
    let rs: Awaited<ReturnType<ClickHouseClient['query']>> | undefined;
    const cancel = () => {
      cancelled = true;
      abort.abort();
      rs?.close();
    };
    // close() cancels an open stream at once rather than waiting for the consumer (which may
    // never ask for more): the request is aborted or its response destroyed.
    calls.streams.add(cancel);
    try {
      if (signal?.aborted) throw new Error('the stream was aborted');
      rs = await client.query({
        query: trimStatement(sql),
        format: 'JSONEachRow',
        // The client drops abort_signal once the headers are in (connection.query's finally), so a
        // stream is stopped by destroying the response (rs.close()); this makes the server stop too.
        clickhouse_settings: { ...settings, ...PROGRESS_SETTINGS, cancel_http_readonly_queries_on_client_close: 1 },
        abort_signal: abort.signal,
        ...(hasParams(params) ? { query_params: params } : {}),
      });
      for await (const rows of rs.stream() as AsyncIterable<{ text: string }[]>) {
        if (rows.length === 0) continue;
        yield parseJsonEachRow<T>(rows.map((r) => r.text).join('\n'));
      }
      if (cancelled) throw storeClosed('query');
      completed = true;
    } catch (e) {
      throw toAppError(cancelled ? storeClosed('query') : e, 'query');
    } finally {
      signal?.removeEventListener('abort', onAbort);
      calls.streams.delete(cancel);
      // An early exit leaves the response unread: destroy it so the socket is freed (not after a
      // complete read: ResultSet.close() destroys with an error, which an ended stream need not see).
      if (!completed) rs?.close();
      abort.abort();
    }
  }

  const store: AnalyticsStore = {
    migrate(migrateOptions) {
      return calls.migrate(() => runMigrations(store, opts.migrationsDir, { ...migrateOptions, cluster: opts.cluster }));
    },

    async insert(table, rows, insertOptions) {
      assertTableName(table);
      const deduplication = deduplicationSettings(insertOptions);
      if (rows.length === 0) return;
      // Encoded whole before the request starts: a row that cannot be encoded must fail the insert,
      // not cut its body after the rows before it (which the server would take as a whole insert).
      const body = toJsonEachRow(rows);
      // exec, not client.insert: insert() drains the response unread, so an exception written
      // into a 200 after a progress header would pass as success.
      await run('insert', async () =>
        statementOutcome(
          await client.exec({
            query: `INSERT INTO ${table} FORMAT JSONEachRow`,
            values: Readable.from([body]),
            clickhouse_settings: { ...settings, ...STATEMENT_SETTINGS, ...ANALYTICS_INSERT_SETTINGS, ...deduplication },
          }),
        ),
      );
    },

    async query<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
      const text = await run('query', async () => {
        const rs = await client.query({
          query: trimStatement(sql),
          format: 'JSONEachRow',
          clickhouse_settings: { ...settings, max_execution_time: QUERY_MAX_SECONDS },
          ...(hasParams(params) ? { query_params: params } : {}),
        });
        return rs.text();
      });
      return parseJsonEachRow<T>(text);
    },

    queryStream<T = Record<string, unknown>>(sql: string, params?: SqlParams, o?: { signal?: AbortSignal }): AsyncIterable<T[]> {
      return { [Symbol.asyncIterator]: () => streamRows<T>(sql, params, o?.signal) };
    },

    async exec(sql, params) {
      await run('exec', () =>
        // client.exec, not command: command() drains the response unread (see insert).
        client
          .exec({
            query: trimStatement(sql),
            clickhouse_settings: { ...settings, ...STATEMENT_SETTINGS },
            ...(hasParams(params) ? { query_params: params } : {}),
          })
          .then(statementOutcome),
      );
    },

    async ping() {
      calls.assertOpen('ping');
      // A SELECT (not the /ping endpoint) so credentials and database are verified too.
      const result = await client.ping({ select: true });
      if (!result.success) throw analyticsError('UNAVAILABLE', 'analytics store is unavailable', result.error, { op: 'ping' });
    },

    close() {
      return calls.close(() => client.close());
    },
  };
  return store;
}
