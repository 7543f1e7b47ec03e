/**
 * The ClickHouse adapter against the REAL @clickhouse/client talking to a scripted peer on loopback
 * (clickhouse-peer.ts): a statement or insert that fails after the response headers went out (a
 * 200 whose body ends in the exception) is a failure, not a success, and a migration whose backfill
 * fails that way is not recorded; errors carry a stable classification (transient: the server busy
 * or away; otherwise permanent) in kit's `transient` form.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { AppError } from '@pylon/kit/errors';
import { isTransientError } from '@pylon/kit/ports/stream';
import type { AnalyticsStore } from '@pylon/kit/ports/analytics';
import { createClickHouseAnalyticsStore } from '../../src/clickhouse/analytics.clickhouse.js';
import { startPeer, type Peer, type PeerAnswer, type PeerRequest } from './clickhouse-peer.js';

let peer: Peer | undefined;
let store: AnalyticsStore | undefined;
let dir: string | undefined;

afterEach(async () => {
  await store?.close();
  await peer?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  store = peer = dir = undefined;
});

async function open(script: (r: PeerRequest) => PeerAnswer, migrationsDir?: string): Promise<{ store: AnalyticsStore; peer: Peer }> {
  peer = await startPeer(script);
  store = await createClickHouseAnalyticsStore({ url: peer.url, requestTimeoutMs: 20_000, ...(migrationsDir ? { migrationsDir } : {}) });
  return { store, peer };
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

const memory = {
  code: 241,
  name: 'MEMORY_LIMIT_EXCEEDED',
  message: 'Memory limit (total) exceeded: would use 9.31 GiB (attempt to allocate chunk of 4194304 bytes), maximum: 9.31 GiB',
};
const parts = {
  code: 252,
  name: 'TOO_MANY_PARTS',
  message: "Too many parts (3001 with average size of 2.50 KiB) in table 'pylon.play_logs'. Merges are processing significantly slower than inserts",
};
const rows = [{ id: 'a', n: 1 }];

describe('a failure after the headers went out is a failure', () => {
  test('exec: a 200 whose body ends in the exception (before 25.11: plain text) rejects, transient', async () => {
    const { store } = await open(() => ({ kind: 'late-error', ...memory }));
    const e = await failure(store.exec('INSERT INTO play_rollup_day SELECT 1'));
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.details).toMatchObject({ op: 'exec', engineCode: 241 });
    expect(isTransientError(e)).toBe(true);
  });

  test('exec: the 25.11 framing with X-ClickHouse-Exception-Tag rejects with the server code', async () => {
    const { store } = await open(() => ({ kind: 'late-error', tagged: true, ...parts }));
    const e = await failure(store.exec('OPTIMIZE TABLE play_logs PARTITION 202611 FINAL'));
    expect(e.details).toMatchObject({ engineCode: 252 });
    expect(isTransientError(e)).toBe(true);
  });

  test('insert: a 200 whose body ends in TOO_MANY_PARTS rejects, transient; the rows reached the peer as JSONEachRow', async () => {
    const { store, peer } = await open(() => ({ kind: 'late-error', ...parts }));
    const e = await failure(store.insert('play_logs', rows, { deduplicationToken: 't1' }));
    expect(e.details).toMatchObject({ op: 'insert', engineCode: 252 });
    expect(isTransientError(e)).toBe(true);
    expect(peer.requests[0]?.sql).toBe('INSERT INTO play_logs FORMAT JSONEachRow');
    expect(peer.requests[0]?.data).toBe('{"id":"a","n":1}\n');
    expect(peer.requests[0]?.params.get('insert_deduplication_token')).toBe('t1');
  });

  test('success with progress headers and an empty body still succeeds (no false alarm)', async () => {
    const { store } = await open(() => ({ kind: 'ok', progress: true }));
    await store.exec('CREATE TABLE IF NOT EXISTS t (x UInt8) ENGINE = MergeTree ORDER BY x');
    await store.insert('t', [{ x: 1 }]);
  });

  test('statements and inserts ask the server to hold the response to the end; plain reads send no progress headers', async () => {
    const { store, peer } = await open((r) => (/^SELECT/.test(r.sql) ? { kind: 'ok', body: '{"n":1}\n' } : { kind: 'ok' }));
    await store.exec('SELECT 1');
    await store.insert('t', [{ x: 1 }]);
    expect(await store.query('SELECT 1 AS n')).toEqual([{ n: 1 }]);
    const [exec, insert, query] = peer.requests;
    for (const r of [exec, insert]) {
      expect(r?.params.get('wait_end_of_query')).toBe('1');
      expect(r?.params.get('send_progress_in_http_headers')).toBe('1');
    }
    expect(query?.params.get('send_progress_in_http_headers')).toBeNull();
    expect(query?.params.get('wait_end_of_query')).toBeNull();
  });

  test('a migration whose backfill fails after the headers is not recorded as applied', async () => {
    dir = await mkdtemp(join(tmpdir(), 'ch-migrations-'));
    await writeFile(
      join(dir, '001_rollup.sql'),
      'CREATE TABLE IF NOT EXISTS r (x UInt8) ENGINE = MergeTree ORDER BY x;\nINSERT INTO r SELECT 1 FROM play_logs;\n',
    );
    const { store, peer } = await open((r) => {
      if (r.sql.startsWith('INSERT INTO r SELECT')) return { kind: 'late-error', ...memory };
      if (r.sql.startsWith('SELECT version')) return { kind: 'ok', body: '' };
      return { kind: 'ok' };
    }, dir);
    const e = await failure(store.migrate());
    expect(e.details).toMatchObject({ engineCode: 241 });
    expect(peer.requests.some((r) => r.sql.includes('INSERT INTO r SELECT'))).toBe(true);
    expect(peer.requests.filter((r) => r.sql.includes('INSERT INTO schema_migrations'))).toEqual([]);
  });
});

describe('error classification (what the ingest obeys)', () => {
  // Each engine error and what the ingest must make of it: retry it later, or dead-letter the batch.
  const TRANSIENT = 'UNAVAILABLE, transient';
  const PERMANENT = 'permanent (not transient)';
  const expected = { [TRANSIENT]: { code: 'UNAVAILABLE', transient: true }, [PERMANENT]: { code: 'INTERNAL', transient: false } };
  const answers: [string, typeof TRANSIENT | typeof PERMANENT, PeerAnswer][] = [
    [
      'TOO_MANY_SIMULTANEOUS_QUERIES (202)',
      TRANSIENT,
      { kind: 'error', status: 500, code: 202, name: 'TOO_MANY_SIMULTANEOUS_QUERIES', message: 'Too many simultaneous queries. Maximum: 100' },
    ],
    ['MEMORY_LIMIT_EXCEEDED (241)', TRANSIENT, { kind: 'error', status: 500, ...memory }],
    ['TOO_MANY_PARTS (252)', TRANSIENT, { kind: 'error', status: 500, ...parts }],
    [
      'TIMEOUT_EXCEEDED (159)',
      TRANSIENT,
      { kind: 'error', status: 500, code: 159, name: 'TIMEOUT_EXCEEDED', message: 'Timeout exceeded: elapsed 600.1 seconds, maximum: 600' },
    ],
    ['TABLE_IS_READ_ONLY (242)', TRANSIENT, { kind: 'error', status: 500, code: 242, name: 'TABLE_IS_READ_ONLY', message: 'Table is in readonly mode' }],
    [
      'KEEPER_EXCEPTION (999)',
      TRANSIENT,
      { kind: 'error', status: 500, code: 999, name: 'KEEPER_EXCEPTION', message: 'Coordination::Exception: Connection loss' },
    ],
    [
      'CANNOT_PARSE_INPUT_ASSERTION_FAILED (27)',
      PERMANENT,
      { kind: 'error', status: 400, code: 27, name: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED', message: "Cannot parse input: expected '{' before: 'x'" },
    ],
    [
      'INCORRECT_DATA (117)',
      PERMANENT,
      { kind: 'error', status: 400, code: 117, name: 'INCORRECT_DATA', message: 'Unknown field found while parsing JSONEachRow format: extra' },
    ],
    ['TYPE_MISMATCH (53)', PERMANENT, { kind: 'error', status: 400, code: 53, name: 'TYPE_MISMATCH', message: 'Type mismatch' }],
    ['UNKNOWN_TABLE (60)', PERMANENT, { kind: 'error', status: 404, code: 60, name: 'UNKNOWN_TABLE', message: 'Table pylon.nope does not exist' }],
  ];
  test.each(answers)('%s: %s, with the engine code', async (_n, kind, answer) => {
    const { store } = await open(() => answer);
    const e = await failure(store.insert('play_logs', rows));
    expect(e.code).toBe(expected[kind].code);
    expect(isTransientError(e)).toBe(expected[kind].transient);
    expect(e.details.engineCode).toBe((answer as { code: number }).code);
  });

  test('a server that refuses the connection: UNAVAILABLE, transient', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const { port } = s.address() as AddressInfo;
    await new Promise((r) => s.close(r));
    store = await createClickHouseAnalyticsStore({ url: `http://127.0.0.1:${port}` });
    const e = await failure(store.insert('play_logs', rows));
    expect(e.code).toBe('UNAVAILABLE');
    expect(isTransientError(e)).toBe(true);
  });

  test('a closed store is transient (a batch in flight at shutdown is redelivered, not dead-lettered)', async () => {
    const { store } = await open(() => ({ kind: 'ok' }));
    await store.close();
    expect(isTransientError(await failure(store.insert('play_logs', rows)))).toBe(true);
  });
});

describe('cluster mode', () => {
  test('the store sends every migration statement rendered for the cluster, and the beforeStatement hook runs before each', async () => {
    peer = await startPeer((r) => (r.sql.startsWith('SELECT version') ? { kind: 'ok', body: '' } : { kind: 'ok' }));
    store = await createClickHouseAnalyticsStore({ url: peer.url, cluster: { cluster: 'pylon' } });
    let checks = 0;
    const applied = await store.migrate({
      beforeStatement: async () => {
        checks++;
      },
    });
    expect(applied.length).toBeGreaterThan(5);
    const statements = peer.requests.map((r) => r.sql.replace(/--[^\n]*/g, '').trim()).filter((s) => !s.startsWith('SELECT version'));
    expect(checks).toBe(statements.length);
    for (const s of statements.filter((x) => /^(CREATE|ALTER|DROP)/.test(x))) expect(s).toMatch(/ ON CLUSTER pylon\b/);
    expect(statements.join('\n')).not.toMatch(/ENGINE = (Replacing|Aggregating)?MergeTree/);
  });
});
