/**
 * Composition root of the operator's self-check (`npm run verify -- --redis ... --kafka ...`; the
 * `verify` role of the image, the k8s Job `pylon-verify`). Against the servers given (flags, or the
 * roles' settings in the environment):
 * 1. each server answers (a red row naming the problem when it does not, within
 *    VERIFY_CONNECT_TIMEOUT_MS);
 * 2. the contract suites of the ports on it: the very suites the adapters pass in CI
 *    (@pylon/kit/contract, @pylon/adapters/contract), run by the harness's own runner (no jest in
 *    the image);
 * 3. an end-to-end scenario (verify/scenario.ts): player batches through the stream into the
 *    analytics store counted exactly, a document read back, a webhook delivered; ports not given
 *    run it on embedded stores in a temporary directory.
 * Everything it creates carries the run's prefix and is removed at the end (--keep leaves it).
 * Prints a progress line per step, then the table; exit 0 when every row passed, 1 otherwise,
 * 2 on bad arguments. No credential is printed (verify/report.ts redacts every line).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { ConfigError, createLogger, loadConfig, type AnalyticsStore, type DocumentStore, type EventStream } from '@pylon/kit';
import { collect, runCollected, type CaseResult } from '@pylon/kit/contract/harness';
import { blobContract } from '@pylon/kit/contract/blobs.contract';
import { cacheContract, pubSubContract } from '@pylon/kit/contract/cache.contract';
import { documentsContract } from '@pylon/kit/contract/documents.contract';
import { rateLimitContract } from '@pylon/kit/contract/rate-limit.contract';
import { streamContract } from '@pylon/kit/contract/stream.contract';
import { analyticsContract } from '@pylon/adapters/contract/analytics.contract';
import { kafkaOptions } from '@pylon/composition/backends';
import { applyFlags, VERIFY_USAGE, verifyEnv, type VerifyEnv } from './verify.config.js';
import { formatTable, redactor, seconds, showTarget, summary, type Row } from './verify/report.js';
import { chain } from './start/start-errors.js';
import { prefixedStream } from './verify/prefixed-stream.js';
import { endpointsOf, tcpReach } from './verify/tcp.js';
import { documentScenario, telemetryScenario, webhookScenario } from './verify/scenario.js';

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(`${VERIFY_USAGE}\n`);
  process.exit(0);
}
const flagged = applyFlags(argv, process.env);
if ('problem' in flagged) {
  process.stderr.write(`verify: ${flagged.problem}\n${VERIFY_USAGE}\n`);
  process.exit(2);
}
let env: VerifyEnv;
try {
  env = loadConfig(verifyEnv, flagged.env);
} catch (e) {
  if (!(e instanceof ConfigError)) throw e;
  process.stderr.write(`verify: invalid settings\n${e.message}\n`);
  process.exit(2);
}

/** Lowercase letters and digits: fits a ClickHouse or MongoDB database name, a Kafka topic, a Redis key and an S3 prefix. */
const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const PREFIX = { kafka: `pylon-verify-${run}-`, redis: `pylon-verify:${run}:`, s3: `${env.S3_PREFIX ?? ''}pylon-verify-${run}/`, db: `pylon_verify_${run}` };
const timeoutMs = env.VERIFY_TIMEOUT_MS;

const userInfo = (url: string | undefined) => {
  const m = url ? /\/\/([^/@\s]*)@/.exec(url) : null;
  if (!m) return [];
  // The password (as written and decoded) and the whole user:password; a user name is no secret
  // (hiding 'pylon' would hide this run's own prefixes).
  const pass = m[1]!.split(':')[1];
  return pass ? [m[1], pass, decodeURIComponent(pass)] : [];
};
const redact = redactor([
  env.CLICKHOUSE_PASSWORD,
  env.KAFKA_SASL_PASSWORD,
  env.S3_SECRET_ACCESS_KEY,
  env.S3_ACCESS_KEY_ID,
  ...userInfo(env.MONGO_URL),
  ...userInfo(env.REDIS_URL),
  ...userInfo(env.CLICKHOUSE_URL),
]);
const say = (line: string) => process.stdout.write(`${redact(line)}\n`);
// The drivers' own log lines (warnings, errors) pass through the same redaction on their way to stderr.
const logger = createLogger({
  level: env.LOG_LEVEL,
  name: 'verify',
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      process.stderr.write(redact(chunk.toString('utf8')));
      done();
    },
  }),
});
/** An error's message with its causes' (an adapter's UNAVAILABLE says which port, its cause why: ECONNREFUSED, a TLS or auth failure). */
function message(e: unknown): string {
  const errors = chain(e);
  // A cause that is not an error (a string thrown or given as cause) ends the chain, as itself.
  const end: unknown = errors.length ? errors.at(-1)!.cause : e;
  const parts: string[] = [];
  for (const m of [...errors.map((x) => x.message || x.name), ...(end !== undefined && end !== null ? [String(end)] : [])])
    if (m && !parts.some((p) => p.includes(m))) parts.push(m);
  return parts.slice(0, 4).join(': ');
}

const rows: Row[] = [];
function record(row: Row): void {
  const r = { ...row, detail: redact(row.detail).slice(0, 400) };
  rows.push(r);
  say(`  ${r.outcome} ${seconds(r.ms)}  ${r.detail}`);
}

/** Rejects after `ms` (the call is left to finish; the process exits at the end regardless). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)))]).finally(
    () => clearTimeout(timer),
  );
}

/** One step: a progress line, then its row. `body` answers the detail or throws the problem. */
async function step(check: string, target: string, body: () => Promise<string>): Promise<boolean> {
  say(`> ${check} (${target})`);
  const started = performance.now();
  try {
    const detail = await body();
    record({ check, target, outcome: 'PASS', ms: performance.now() - started, detail });
    return true;
  } catch (e) {
    record({ check, target, outcome: 'FAIL', ms: performance.now() - started, detail: message(e) });
    return false;
  }
}

const skip = (check: string, target: string, detail: string) => {
  say(`> ${check} (${target})`);
  record({ check, target, outcome: 'SKIP', ms: 0, detail });
};

/** Runs a contract suite with the harness; a failed case is printed as it happens. */
async function contract(check: string, target: string, declare: () => void): Promise<void> {
  await step(check, target, async () => {
    const collected = collect(declare);
    say(`  ${collected.count} checks`);
    const results = await runCollected(collected, {
      timeoutMs,
      onCase: (r: CaseResult) => {
        if (r.outcome === 'failed') say(`  x ${r.name}: ${r.error ?? ''}`);
      },
    });
    const n = (o: CaseResult['outcome']) => results.filter((r) => r.outcome === o).length;
    const failed = results.filter((r) => r.outcome === 'failed');
    const counts = `${n('passed')} passed${n('skipped') ? `, ${n('skipped')} skipped` : ''}`;
    if (failed.length) throw new Error(`${failed.length} of ${results.length} failed (${counts}); first: ${failed[0]!.name}: ${failed[0]!.error ?? ''}`);
    return counts;
  });
}

/** A server's first answer (TCP to each of its hosts, then its driver's ping); false (and a red row) when it does not come. */
const reach = (port: string, target: string, endpoints: { host: string; port: number }[], ping: () => Promise<void>) =>
  step(`${port}: reachable`, target, async () => {
    const started = Date.now();
    for (const e of endpoints) await tcpReach(e.host, e.port, env.VERIFY_CONNECT_TIMEOUT_MS);
    await within(ping(), env.VERIFY_CONNECT_TIMEOUT_MS, `${port} at ${target}`);
    return `answered in ${Date.now() - started} ms`;
  });

/** What the run leaves to remove, in order, each answering what it removed. */
const cleanups: { what: string; run: () => Promise<string> }[] = [];

const started = performance.now();
say(`Pylon self-check, run ${run} (everything it creates is named after it), up to ${timeoutMs} ms per check`);
const contracts = env.VERIFY_ONLY !== 'scenario';
const scenario = env.VERIFY_ONLY !== 'contracts';

// ---- the servers given, each reached once, then its contract suites ----
const kafkaTarget = env.KAFKA_BROKERS.length ? `kafka ${env.KAFKA_BROKERS.join(',')}` : 'not given';
const redisTarget = env.REDIS_URL ? showTarget(env.REDIS_URL) : 'not given';
const mongoTarget = env.MONGO_URL ? showTarget(env.MONGO_URL) : 'not given';
const chTarget = env.CLICKHOUSE_URL ? showTarget(env.CLICKHOUSE_URL) : 'not given';
const s3Target = env.S3_BUCKET ? `s3://${env.S3_BUCKET}/${PREFIX.s3}${env.S3_ENDPOINT ? ` at ${showTarget(env.S3_ENDPOINT)}` : ''}` : 'not given';

const kafka = env.KAFKA_BROKERS.length ? await import('@pylon/adapters/kafka') : undefined;
const redis = env.REDIS_URL ? await import('@pylon/adapters/redis') : undefined;
const mongo = env.MONGO_URL ? await import('@pylon/adapters/mongo') : undefined;
const clickhouse = env.CLICKHOUSE_URL ? await import('@pylon/adapters/clickhouse') : undefined;
const s3 = env.S3_BUCKET ? await import('@pylon/adapters/s3') : undefined;

const kafkaStream = (): EventStream =>
  prefixedStream(kafka!.createKafkaStream({ ...kafkaOptions(env, `pylon-verify-${run}`, logger), numPartitions: 3 }), PREFIX.kafka);
const openClickHouse = (database: string | undefined): Promise<AnalyticsStore> =>
  clickhouse!.createClickHouseAnalyticsStore({
    url: env.CLICKHOUSE_URL!,
    ...(env.CLICKHOUSE_USER ? { username: env.CLICKHOUSE_USER } : {}),
    ...(env.CLICKHOUSE_PASSWORD ? { password: env.CLICKHOUSE_PASSWORD } : {}),
    ...(database ? { database } : {}),
  });
/**
 * A database of this run's own on the operator's server: created now; `drop()` drops it, then closes
 * the connection it was made through (which nothing else may close first: a closed store refuses).
 */
async function clickhouseDatabase(database: string): Promise<{ drop(): Promise<void> }> {
  const admin = await openClickHouse(env.CLICKHOUSE_DATABASE);
  await admin.exec(`CREATE DATABASE IF NOT EXISTS ${database}`);
  return {
    async drop() {
      try {
        await admin.exec(`DROP DATABASE IF EXISTS ${database}`);
      } finally {
        await admin.close();
      }
    },
  };
}
const s3Options = () => ({
  bucket: env.S3_BUCKET!,
  endpoint: env.S3_ENDPOINT,
  region: env.S3_REGION,
  accessKeyId: env.S3_ACCESS_KEY_ID,
  secretAccessKey: env.S3_SECRET_ACCESS_KEY,
});
let dbSeq = 0;

const up = { kafka: false, redis: false, mongo: false, clickhouse: false, s3: false };

if (kafka) {
  up.kafka = await reach('kafka', kafkaTarget, endpointsOf(env.KAFKA_BROKERS.join(','), 9092), async () => {
    const s = kafka.createKafkaStream({ ...kafkaOptions(env, `pylon-verify-${run}`, logger), requestTimeoutMs: env.VERIFY_CONNECT_TIMEOUT_MS });
    try {
      await s.ping();
    } finally {
      await s.close();
    }
  });
  if (up.kafka)
    cleanups.push({
      what: 'kafka',
      run: async () => `${(await kafka.deleteKafkaPrefix(kafkaOptions(env, `pylon-verify-${run}`), PREFIX.kafka)).topics.length} topics`,
    });
  if (up.kafka && contracts) await contract('kafka: stream contract', kafkaTarget, () => streamContract('kafka', kafkaStream, { timeoutMs: 30_000 }));
} else skip('kafka', kafkaTarget, 'not given (--kafka or KAFKA_BROKERS)');

if (redis) {
  const url = env.REDIS_URL!;
  up.redis = await reach('redis', redisTarget, endpointsOf(url, 6379), async () => {
    const c = redis.createRedisCache({ url, keyPrefix: PREFIX.redis, commandTimeoutMs: env.VERIFY_CONNECT_TIMEOUT_MS });
    try {
      await c.ping();
    } finally {
      await c.close();
    }
  });
  if (up.redis) cleanups.push({ what: 'redis', run: async () => `${await redis.deleteRedisKeys(url, PREFIX.redis)} keys` });
  if (up.redis && contracts) {
    await contract('redis: cache contract', redisTarget, () =>
      cacheContract('redis', () => redis.createRedisCache({ url, keyPrefix: `${PREFIX.redis}cache:` })),
    );
    await contract('redis: pub/sub contract', redisTarget, () =>
      pubSubContract('redis', () => () => redis.createRedisPubSub({ url, channelPrefix: PREFIX.redis })),
    );
    await contract('redis: rate-limit contract', redisTarget, () =>
      rateLimitContract('redis', (spec) => redis.createRedisRateLimiter({ ...spec, url, keyPrefix: `${PREFIX.redis}rl:` })),
    );
    // The options the adapters' CI run uses (short claim and retry times), on streams of this run only.
    const options = { url, keyPrefix: `${PREFIX.redis}stream:`, claimIdleMs: 300, retryBaseMs: 20, retryMaxMs: 200, retentionIntervalMs: 0 };
    await contract('redis: stream contract', redisTarget, () => streamContract('redis', () => redis.createRedisStream(options), { timeoutMs: 10_000 }));
  }
} else skip('redis', redisTarget, 'not given (--redis or REDIS_URL)');

if (mongo) {
  const url = env.MONGO_URL!;
  up.mongo = await reach('mongo', mongoTarget, endpointsOf(url, 27017), async () => {
    const d = await mongo.createMongoDocumentStore({ url, dbName: PREFIX.db, serverSelectionTimeoutMS: env.VERIFY_CONNECT_TIMEOUT_MS });
    try {
      await d.ping();
    } finally {
      await d.close();
    }
  });
  if (up.mongo) cleanups.push({ what: 'mongo', run: async () => (await mongo.dropMongoDatabase(url, PREFIX.db), `database ${PREFIX.db}`) });
  if (up.mongo && contracts) {
    await contract('mongo: documents contract', mongoTarget, () =>
      documentsContract(
        'mongo',
        async () => {
          // A database per case, as in the adapters' CI run, dropped by the case's cleanup.
          const dbName = `${PREFIX.db}_${dbSeq++}`;
          let current: DocumentStore = await mongo.createMongoDocumentStore({ url, dbName });
          return {
            store: current,
            reopen: async () => {
              await current.close();
              current = await mongo.createMongoDocumentStore({ url, dbName });
              return current;
            },
            twin: () => mongo.createMongoDocumentStore({ url, dbName }),
            cleanup: async () => {
              await current.close();
              await mongo.dropMongoDatabase(url, dbName);
            },
          };
        },
        { sharedByReplicas: true },
      ),
    );
  }
} else skip('mongo', mongoTarget, 'not given (--mongo or MONGO_URL)');

if (clickhouse) {
  up.clickhouse = await reach('clickhouse', chTarget, endpointsOf(env.CLICKHOUSE_URL!), async () => {
    const a = await openClickHouse(env.CLICKHOUSE_DATABASE);
    try {
      await a.ping();
    } finally {
      await a.close();
    }
  });
  if (up.clickhouse && contracts) {
    await contract('clickhouse: analytics contract', chTarget, () =>
      analyticsContract('clickhouse', async () => {
        // A database per suite, as in the adapters' CI run, dropped by its cleanup.
        const database = `${PREFIX.db}_${dbSeq++}`;
        const db = await clickhouseDatabase(database);
        let current = await openClickHouse(database);
        return {
          store: current,
          async reopen() {
            await current.close();
            current = await openClickHouse(database);
            return current;
          },
          async cleanup() {
            await current.close();
            await db.drop();
          },
        };
      }),
    );
  }
} else skip('clickhouse', chTarget, 'not given (--clickhouse or CLICKHOUSE_URL)');

if (s3) {
  up.s3 = await reach('s3', s3Target, env.S3_ENDPOINT ? endpointsOf(env.S3_ENDPOINT, env.S3_ENDPOINT.startsWith('https:') ? 443 : 80) : [], async () => {
    const b = s3.createS3BlobStore({ ...s3Options(), prefix: PREFIX.s3 });
    try {
      await b.ping();
    } finally {
      await b.close();
    }
  });
  if (up.s3) cleanups.push({ what: 's3', run: async () => `${await s3.deleteS3Prefix(s3Options(), PREFIX.s3)} objects` });
  if (up.s3 && contracts)
    await contract('s3: blobs contract', s3Target, () => blobContract('s3', () => s3.createS3BlobStore({ ...s3Options(), prefix: PREFIX.s3 })));
} else skip('s3', s3Target, 'not given (--s3 or S3_BUCKET)');

// ---- the end-to-end scenario, on the servers given and embedded stores for the rest ----
if (scenario) {
  const dir = await mkdtemp(join(tmpdir(), 'pylon-verify-'));
  cleanups.push({ what: 'temporary directory', run: async () => (await rm(dir, { recursive: true, force: true }), dir) });
  const opened: (() => Promise<void>)[] = [];
  const down = (port: keyof typeof up) => `${port} did not answer (see its row)`;
  const streamNeed = kafka ? (up.kafka ? undefined : down('kafka')) : redis && !up.redis ? down('redis') : undefined;
  const docsNeed = mongo && !up.mongo ? down('mongo') : undefined;
  const analyticsNeed = clickhouse && !up.clickhouse ? down('clickhouse') : undefined;

  let stream: EventStream | undefined;
  let streamTarget = 'embedded (lmdb)';
  let documents: DocumentStore | undefined;
  let docsTarget = 'embedded (lmdb)';
  let analytics: AnalyticsStore | undefined;
  let analyticsTarget = 'embedded (chdb)';
  const setup: string[] = [];
  try {
    if (!streamNeed) {
      if (kafka) {
        stream = kafkaStream();
        streamTarget = kafkaTarget;
      } else if (redis) {
        stream = redis.createRedisStream({ url: env.REDIS_URL!, keyPrefix: `${PREFIX.redis}e2e:` });
        streamTarget = `${redisTarget} (streams)`;
      } else {
        const { createLmdbStream } = await import('@pylon/adapters/lmdb');
        stream = createLmdbStream({ path: join(dir, 'stream') });
      }
      const s = stream;
      opened.push(() => s.close());
    }
    if (!docsNeed) {
      if (mongo) {
        documents = await mongo.createMongoDocumentStore({ url: env.MONGO_URL!, dbName: PREFIX.db });
        docsTarget = mongoTarget;
      } else {
        const { createLmdbDocumentStore } = await import('@pylon/adapters/lmdb');
        documents = await createLmdbDocumentStore({ path: join(dir, 'documents') });
      }
      const d = documents;
      opened.push(() => d.close());
    }
    if (!analyticsNeed) {
      if (clickhouse) {
        // Dropped by the clean-up after the scenario's stores closed (its own connection, closed by the drop).
        const db = await clickhouseDatabase(PREFIX.db);
        cleanups.unshift({ what: 'clickhouse', run: async () => (await db.drop(), `database ${PREFIX.db}`) });
        analytics = await openClickHouse(PREFIX.db);
        analyticsTarget = `${chTarget} (database ${PREFIX.db})`;
      } else {
        const { createChdbAnalyticsStore } = await import('@pylon/adapters/chdb');
        analytics = await createChdbAnalyticsStore({ path: join(dir, 'analytics') });
      }
      const a = analytics;
      opened.unshift(() => a.close());
      // The schema the migrations job applies, in this run's own database.
      await a.migrate();
    }
  } catch (e) {
    setup.push(message(e));
  }
  const ports = { logger, run, timeoutMs };
  const blocked = (...why: (string | undefined)[]) => why.find(Boolean) ?? (setup.length ? `setting up failed: ${setup.join('; ')}` : undefined);

  const telemetryTarget = `${streamTarget} -> ${analyticsTarget}`;
  const t = blocked(streamNeed, analyticsNeed);
  if (t || !stream || !analytics) skip('scenario: telemetry exactly once', telemetryTarget, t ?? 'not set up');
  else {
    const [s, a] = [stream, analytics];
    await step('scenario: telemetry exactly once', telemetryTarget, () =>
      within(telemetryScenario({ ...ports, stream: s, analytics: a, documents: documents! }), timeoutMs + 30_000, 'telemetry'),
    );
  }
  const d = blocked(docsNeed);
  if (d || !documents) skip('scenario: document read back', docsTarget, d ?? 'not set up');
  else {
    const docs = documents;
    await step('scenario: document read back', docsTarget, () => within(documentScenario(docs, run), timeoutMs, 'documents'));
  }
  const w = blocked(streamNeed, docsNeed);
  if (w || !stream || !documents) skip('scenario: webhook delivered', `${streamTarget}, ${docsTarget}`, w ?? 'not set up');
  else {
    const [s, docs] = [stream, documents];
    await step('scenario: webhook delivered', `${streamTarget}, ${docsTarget}`, () =>
      within(webhookScenario({ ...ports, stream: s, documents: docs }), timeoutMs + 30_000, 'webhook'),
    );
  }
  // Stores close before their data is removed.
  cleanups.unshift({
    what: 'scenario stores',
    run: async () => {
      for (const close of opened.reverse()) await close().catch(() => undefined);
      return `${opened.length} closed`;
    },
  });
}

// ---- clean-up: what the run created, by its prefix ----
if (env.VERIFY_KEEP) skip('cleanup', 'everything of this run', `kept (--keep): names start with ${PREFIX.kafka}, ${PREFIX.redis}, ${PREFIX.db}, ${PREFIX.s3}`);
else
  await step('cleanup', 'everything of this run', async () => {
    const done: string[] = [];
    const failed: string[] = [];
    for (const c of cleanups) {
      try {
        done.push(`${c.what}: ${await within(c.run(), timeoutMs, c.what)}`);
      } catch (e) {
        failed.push(`${c.what}: ${message(e)}`);
      }
    }
    if (failed.length) throw new Error(`could not remove ${failed.join('; ')} (removed ${done.join(', ') || 'nothing'})`);
    return `removed ${done.join(', ') || 'nothing'}`;
  });

const total = performance.now() - started;
say('');
say(formatTable(rows));
say('');
say(summary(rows, total));
// Drivers may keep sockets or timers open; the outcome is decided.
process.exit(rows.some((r) => r.outcome === 'FAIL') ? 1 : 0);
