/**
 * A busy ClickHouse is transient, not a bad batch (issue 33, row 4). The errors come from the real
 * @clickhouse/client against a scripted HTTP peer on loopback answering as ClickHouse does under
 * overload (status 500, `X-ClickHouse-Exception-Code`, the `Code: N. DB::Exception: ...` body)
 * while its /ping answers `Ok.`: the adapter marks TOO_MANY_PARTS, MEMORY_LIMIT_EXCEEDED,
 * TOO_MANY_SIMULTANEOUS_QUERIES and TIMEOUT_EXCEEDED transient and a syntax error not. The ingest,
 * whose store throws those errors for a while (then the embedded chDB store answers), backs off and
 * stores every record: none reaches dead_letters.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, isTransientError, TOPICS, type AnalyticsStore } from '@pylon/kit';
import { createClickHouseAnalyticsStore } from '@pylon/adapters/clickhouse';
import { createLmdbStream } from '@pylon/adapters/lmdb';
import { startIngest } from '../src/workers/ingest.js';
import { intercepted, until, withChdbStore } from './ingest.helpers.js';
import { loopback } from './support/loopback.js';

let store: AnalyticsStore;
withChdbStore('pylon-ingest-overload-', (s) => (store = s));
const logger = createLogger({ level: 'silent' });

const ANSWERS: Record<number, string> = {
  252: "Too many parts (3001 with average size of 1.00 KiB) in table 'pylon.ping_logs'. Merges are processing significantly slower than inserts. (TOO_MANY_PARTS)",
  241: 'Memory limit (total) exceeded: would use 28.00 GiB (attempt to allocate chunk of 4194304 bytes), maximum: 27.90 GiB. (MEMORY_LIMIT_EXCEEDED)',
  202: 'Too many simultaneous queries. Maximum: 100. (TOO_MANY_SIMULTANEOUS_QUERIES)',
  159: 'Timeout exceeded: elapsed 600.1 seconds, maximum: 600. (TIMEOUT_EXCEEDED)',
  62: "Syntax error: failed at position 1 ('INSRT'). (SYNTAX_ERROR)",
};

/** A loopback peer answering every statement with ClickHouse's exception for `code`, and pings (`/ping`, `SELECT 'ping'`) as a healthy server. */
function overloadedClickHouse(code: () => number) {
  return loopback((url, body, res) => {
    const statement = `${new URL(url, 'http://peer').searchParams.get('query') ?? ''} ${body}`;
    if (url.startsWith('/ping') || /^SELECT 'ping'/.test(statement)) {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end(url.startsWith('/ping') ? 'Ok.\n' : 'ping\n');
      return;
    }
    const c = code();
    res
      .writeHead(500, { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(c) })
      .end(`Code: ${c}. DB::Exception: ${ANSWERS[c]} (version 24.8.4.13 (official build))\n`);
  });
}

const row = {
  id: 'p1',
  account_id: 'a',
  device_id: 'd',
  timestamp: '2026-05-01T10:00:00.000Z',
  cpu_usage: 1,
  memory_usage: 1,
  disk_usage: 1,
  player_version: '1',
  ip_address: '',
  external_ip_address: '',
};

/** The error the ClickHouse adapter raises for each code, the peer answering ping. */
async function adapterErrors(): Promise<Map<number, unknown>> {
  let current = 0;
  const peer = await overloadedClickHouse(() => current);
  const ch = await createClickHouseAnalyticsStore({ url: peer.url, requestTimeoutMs: 10_000 });
  const out = new Map<number, unknown>();
  try {
    await ch.ping();
    for (const code of Object.keys(ANSWERS).map(Number)) {
      current = code;
      out.set(
        code,
        await ch.insert('ping_logs', [row]).then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
    }
  } finally {
    await ch.close();
    await peer.close();
  }
  return out;
}

test('the ClickHouse adapter marks the overload codes transient and a syntax error not', async () => {
  const errors = await adapterErrors();
  const transient = [...errors].map(([code, e]) => [code, isTransientError(e)]);
  expect(transient).toEqual([
    [62, false],
    [159, true],
    [202, true],
    [241, true],
    [252, true],
  ]);
  expect(errors.get(252)).toMatchObject({ code: 'UNAVAILABLE', details: { engineCode: 252 } });
  expect((errors.get(252) as Error).message).not.toMatch(/clickhouse/i); // messages never name the engine
}, 30_000);

test('the ingest backs off through overload errors (store still answering ping) and dead-letters nothing', async () => {
  const errors = await adapterErrors();
  const overload = [252, 241, 202, 159, 252, 241].map((c) => errors.get(c));
  let refused = 0;
  const analytics = intercepted(store, {
    async insert(table, rows, options) {
      if (table === 'ping_logs' && refused < overload.length) throw overload[refused++];
      return store.insert(table, rows, options);
    },
  });
  const streamDir = await mkdtemp(join(tmpdir(), 'pylon-overload-stream-'));
  const stream = await createLmdbStream({
    path: streamDir,
    retryBaseMs: 20,
    retryMaxMs: 100,
    retentionIntervalMs: 0,
  });
  const ingest = await startIngest({ stream, analytics, logger, maxBatchSize: 100, maxWaitMs: 20, maxAttempts: 2 });
  try {
    await stream.publish(
      TOPICS.pings,
      [1, 2, 3].map((i) => ({ key: 'busy', value: { ...row, id: `busy-${i}`, account_id: 'busy' } })),
    );
    const count = async (sql: string) => Number((await store.query<{ c: number }>(sql))[0]!.c);
    await until(async () => (await count("SELECT count() AS c FROM ping_logs FINAL WHERE account_id = 'busy'")) === 3, 30_000, 'the 3 records stored');
    expect(refused).toBe(overload.length);
    expect(await count('SELECT count() AS c FROM dead_letters')).toBe(0);
  } finally {
    await ingest.close();
    await stream.close();
    await rm(streamDir, { recursive: true, force: true });
  }
}, 60_000);
