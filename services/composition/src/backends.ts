/**
 * Builds the adapters a process asked for. Only composition roots (main.ts files and the
 * all-in-one entry) call this; domain and GraphQL code see the ports alone.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { clusterRenderer, DEFAULT_ZOOKEEPER_PATH, type ClusterRendering } from '@pylon/adapters/analytics';
import { analyticsRetentionEnv, retentionFromEnv, runAnalyticsMigrations } from './analytics-migrations.js';
import {
  createFileSpool,
  createLogger,
  envBool,
  envList,
  type Logger,
  type AnalyticsStore,
  type SqlParams,
  type BlobStore,
  type Cache,
  type DocumentStore,
  type EventStream,
  type Leases,
  type Spool,
  type PubSub,
  type RateLimiter,
  type RateLimitSpec,
} from '@pylon/kit';

/** The Redis Streams settings (STREAM_DRIVER=redis), shared by the backends and the edges' audit sink. */
export const redisStreamEnv = {
  /** Key prefix of the Redis Streams (STREAM_DRIVER=redis): deployments (or test runs) sharing one Redis keep apart by it. */
  REDIS_STREAM_PREFIX: z.string().min(1).max(100).default('pylon:stream:'),
  /**
   * Redis Streams durability of a publish (docs/operations/delivery-guarantees.md): true waits until
   * the entries are fsynced to Redis's AOF (WAITAOF, Redis 7.2+ with appendonly yes); by default an
   * acknowledged entry is in memory only and `appendfsync everysec` may lose its last second.
   */
  REDIS_STREAM_WAIT_AOF: envBool(false),
  /** Redis Streams: replicas that must hold a publish before it is acknowledged (0: none). */
  REDIS_STREAM_WAIT_REPLICAS: z.coerce.number().int().min(0).max(10).default(0),
};

/** Kafka connection settings (STREAM_DRIVER=kafka), shared by the backends and the audit sinks. */
export const kafkaEnv = {
  KAFKA_BROKERS: envList(),
  /** TLS to the brokers. */
  KAFKA_SSL: envBool(false),
  KAFKA_SASL_MECHANISM: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']).optional(),
  KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  KAFKA_SASL_PASSWORD: z.string().min(1).optional(),
  /** Replication factor of topics Pylon creates, the migrations job's too (absent: the broker's default.replication.factor). */
  KAFKA_REPLICATION_FACTOR: z.coerce.number().int().min(1).max(10).optional(),
  /** Partitions of topics Pylon creates (the migrations job's too): at most this many consumers of a group share a topic. */
  KAFKA_NUM_PARTITIONS: z.coerce.number().int().min(1).max(1000).default(3),
  /**
   * A consumer that sends no heartbeat this long is evicted and its partitions handed over. Must
   * outlast the longest store call between two heartbeats (ClickHouse's request timeout, 600 s) and
   * stay within the broker's group.max.session.timeout.ms (30 min by default).
   */
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6_000).max(3_600_000).default(630_000),
};
type KafkaEnv = z.infer<z.ZodObject<typeof kafkaEnv>>;

/** The Kafka adapter's options from the settings: TLS, SASL, replication, partitions, the process's logger. */
export function kafkaOptions(env: KafkaEnv, clientId: string, logger?: Logger) {
  const m = env.KAFKA_SASL_MECHANISM;
  const user = env.KAFKA_SASL_USERNAME;
  const pass = env.KAFKA_SASL_PASSWORD;
  return {
    brokers: env.KAFKA_BROKERS,
    clientId,
    ssl: env.KAFKA_SSL,
    ...(m && user && pass ? { sasl: { mechanism: m, username: user, password: pass } } : {}),
    ...(env.KAFKA_REPLICATION_FACTOR ? { replicationFactor: env.KAFKA_REPLICATION_FACTOR } : {}),
    numPartitions: env.KAFKA_NUM_PARTITIONS,
    sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS,
    logger: logger ?? createLogger({ level: 'warn', name: 'stream' }),
  };
}

type RedisStreamEnv = z.infer<z.ZodObject<typeof redisStreamEnv>>;

/** The Redis Streams adapter's options from the settings: key prefix, publish durability, the process's logger (REDIS_URL checked by the caller). */
export function redisStreamOptions(env: RedisStreamEnv & { REDIS_URL?: string | undefined }, logger?: Logger) {
  return {
    url: env.REDIS_URL!,
    keyPrefix: env.REDIS_STREAM_PREFIX,
    publishWait: { aof: env.REDIS_STREAM_WAIT_AOF, replicas: env.REDIS_STREAM_WAIT_REPLICAS },
    onError: (err: Error) => logger?.warn({ err }, 'redis stream'),
  };
}

/** The stream spool's directory in a data dir; the audit spool's default too (audit-sink.ts). */
export const spoolDir = (dataDir: string): string => resolve(dataDir, 'spool');

/** Backend settings, shared by every process's config schema. Embedded drivers are the default. */
export const backendEnv = z.object({
  /** Embedded drivers' data (LMDB, chDB, local blobs); never created when every wanted backend is a server. */
  SIGNAGE_DATA_DIR: z.string().min(1).default('./data'),
  /**
   * true (default): a process runs the ClickHouse migrations it needs at start (one process).
   * false: schema changes are left to the migrations job (`migrate` role), so replicas never race
   * each other or drop what another version declared.
   */
  MIGRATE_AT_START: envBool(true),
  DOCUMENTS_DRIVER: z.enum(['lmdb', 'mongo']).default('lmdb'),
  /** A MongoDB connection string: mongodb+srv://, or mongodb:// with one host or a replica set's comma-separated hosts (not a WHATWG URL). */
  MONGO_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\/[^/?#\s]+(\/[^?#\s]*)?(\?\S*)?$/, 'a mongodb:// or mongodb+srv:// connection string')
    .optional(),
  ANALYTICS_DRIVER: z.enum(['chdb', 'clickhouse']).default('chdb'),
  ...analyticsRetentionEnv,
  CLICKHOUSE_URL: z.string().url().optional(),
  CLICKHOUSE_USER: z.string().optional(),
  CLICKHOUSE_PASSWORD: z.string().optional(),
  CLICKHOUSE_DATABASE: z.string().regex(/^\w+$/).optional(),
  /**
   * A self-managed ClickHouse cluster's name (remote_servers): the migrations and the migration
   * lease run ON CLUSTER with Replicated engines. Unset: the single-node form (also ClickHouse Cloud).
   */
  CLICKHOUSE_CLUSTER: z
    .string()
    .regex(/^[A-Za-z_][\w-]*$/, 'a cluster name as remote_servers declares it')
    .optional(),
  /** Keeper path of each replicated table in cluster mode; `{table}` is the table's name, other macros the server's. */
  CLICKHOUSE_ZOOKEEPER_PATH: z.string().min(1).default(DEFAULT_ZOOKEEPER_PATH),
  /**
   * lmdb: the durable embedded log under SIGNAGE_DATA_DIR/stream (one process per data dir); memory: nothing survives a restart (tests);
   * kafka: KAFKA_BROKERS; redis: Redis Streams at REDIS_URL (several processes without Kafka).
   */
  STREAM_DRIVER: z.enum(['lmdb', 'memory', 'kafka', 'redis']).default('lmdb'),
  ...kafkaEnv,
  ...redisStreamEnv,
  CACHE_DRIVER: z.enum(['memory', 'redis']).default('memory'),
  REDIS_URL: z.string().url().optional(),
  BLOBS_DRIVER: z.enum(['local', 's3']).default('local'),
  /** S3-compatible object storage (BLOBS_DRIVER=s3): bucket (required), endpoint (absent: AWS), credentials (both or neither: the SDK's default chain). */
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)')
    .optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._/-]{0,200}$/, 'letters, digits and . _ - /')
    .optional(),
});

export type BackendEnv = z.infer<typeof backendEnv>;

const isEmpty = (v: unknown) => v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
const requires = (driver: keyof BackendEnv, value: string, key: keyof BackendEnv) =>
  z.refine(
    (v: unknown) => {
      const env = (v ?? {}) as Record<string, unknown>;
      return !(env[driver] === value && isEmpty(env[key]));
    },
    {
      message: `required when ${driver}=${value}`,
      path: [key],
      // Run even when other settings failed, so every problem is reported at once.
      when: () => true,
    },
  );

/** Cross-field rules (a driver needs its URL): `schema.check(...backendRules)`. */
export const backendRules = [
  requires('DOCUMENTS_DRIVER', 'mongo', 'MONGO_URL'),
  requires('ANALYTICS_DRIVER', 'clickhouse', 'CLICKHOUSE_URL'),
  requires('STREAM_DRIVER', 'kafka', 'KAFKA_BROKERS'),
  requires('STREAM_DRIVER', 'redis', 'REDIS_URL'),
  // SASL without a user name or password would connect without authenticating: refused at start.
  ...(['plain', 'scram-sha-256', 'scram-sha-512'] as const).flatMap((m) => [
    requires('KAFKA_SASL_MECHANISM', m, 'KAFKA_SASL_USERNAME'),
    requires('KAFKA_SASL_MECHANISM', m, 'KAFKA_SASL_PASSWORD'),
  ]),
  requires('CACHE_DRIVER', 'redis', 'REDIS_URL'),
  requires('BLOBS_DRIVER', 's3', 'S3_BUCKET'),
  z.refine(
    (v: unknown) => {
      const env = (v ?? {}) as Record<string, unknown>;
      return isEmpty(env.S3_ACCESS_KEY_ID) === isEmpty(env.S3_SECRET_ACCESS_KEY);
    },
    {
      message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or neither: the default credential chain)',
      path: ['S3_SECRET_ACCESS_KEY'],
      when: () => true,
    },
  ),
];

export interface Backends {
  documents?: DocumentStore;
  analytics?: AnalyticsStore;
  stream?: EventStream;
  /** Where telemetry waits on disk while the stream refuses it (SIGNAGE_DATA_DIR/spool); built with the stream. */
  spool?: Spool;
  cache?: Cache;
  pubsub?: PubSub;
  /** Counted holds (the live stream's limits): Redis's are shared by replicas (CACHE_DRIVER=redis), embedded ones count this process's. */
  leases?: Leases;
  blobs?: BlobStore;
  /** Closes what was opened, in reverse order of opening. */
  close(): Promise<void>;
  /** Registers something built on these backends (a consumer, a buffer) to close before them. */
  onClose(close: () => Promise<void>): void;
  /** Readiness checks for /readyz. */
  checks: Record<string, () => Promise<void>>;
  /**
   * Resolves once the analytics migrations this process runs are applied (at once when it runs
   * none); rejects as they failed. Only pending with `deferMigrations`: until then the analytics
   * check fails.
   */
  migrated: Promise<void>;
}

type Want = 'documents' | 'analytics' | 'stream' | 'cache' | 'blobs';

/** Whether any wanted backend is an embedded one that keeps data under SIGNAGE_DATA_DIR. */
export function usesDataDir(env: BackendEnv, want: Want[]): boolean {
  return (
    (want.includes('documents') && env.DOCUMENTS_DRIVER === 'lmdb') ||
    (want.includes('analytics') && env.ANALYTICS_DRIVER === 'chdb') ||
    (want.includes('blobs') && env.BLOBS_DRIVER === 'local')
  );
}

export interface BackendOptions {
  /** The migrations job: MongoDB indexes are also dropped and rebuilt, not only created. */
  migrate?: boolean;
  /** The process's logger, handed to drivers that log (Kafka). */
  logger?: Logger;
  /**
   * Resolve with the analytics store opened but its migrations still running (on the engine's
   * threads; `migrated` says when they are done), so the caller builds the rest meanwhile. Until
   * then every call on `analytics` waits for them (and fails as they failed), and the analytics
   * readiness check fails.
   */
  deferMigrations?: boolean;
}

/** `store` whose every call first waits for `migrated` (then rejects as it rejected). */
export function afterMigrations(store: AnalyticsStore, migrated: Promise<void>): AnalyticsStore {
  let applied = false;
  void migrated.then(
    () => (applied = true),
    () => undefined,
  );
  const ready = () => (applied ? undefined : migrated);
  return {
    migrate: async (o) => (await ready(), store.migrate(o)),
    insert: async (table, rows, o) => (await ready(), store.insert(table, rows, o)),
    query: async <T>(sql: string, params?: SqlParams) => (await ready(), store.query<T>(sql, params)),
    async *queryStream<T>(sql: string, params?: SqlParams, o?: { signal?: AbortSignal }) {
      await ready();
      yield* store.queryStream<T>(sql, params, o);
    },
    exec: async (sql, params) => (await ready(), store.exec(sql, params)),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}

export async function createBackends(env: BackendEnv, want: Want[], clientId = 'pylon', options: BackendOptions = {}): Promise<Backends> {
  const { logger } = options;
  const dataDir = resolve(env.SIGNAGE_DATA_DIR);
  // Stateless roles on server backends never touch the local disk (read-only root filesystems).
  if (usesDataDir(env, want)) mkdirSync(dataDir, { recursive: true });
  const opened: { name: string; close: () => Promise<void> }[] = [];
  const b: Backends = {
    checks: {},
    migrated: Promise.resolve(),
    async close() {
      for (const o of [...opened].reverse()) await o.close();
    },
    onClose(close) {
      opened.push({ name: 'dependent', close });
    },
  };
  // Which backend an error while opening came from (failedBackend), for /readyz while the process waits for it.
  let opening: Want | undefined;
  try {
    if (want.includes('documents')) {
      opening = 'documents';
      if (env.DOCUMENTS_DRIVER === 'mongo') {
        const { createMongoDocumentStore } = await import('@pylon/adapters/mongo');
        b.documents = await createMongoDocumentStore({ url: env.MONGO_URL!, indexes: options.migrate ? 'migrate' : 'create' });
      } else {
        const { createLmdbDocumentStore } = await import('@pylon/adapters/lmdb');
        b.documents = await createLmdbDocumentStore({ path: join(dataDir, 'documents') });
      }
      const d = b.documents;
      opened.push({ name: 'documents', close: () => d.close() });
      b.checks.documents = () => d.ping();
    }
    if (want.includes('analytics')) {
      opening = 'analytics';
      const clusterRendering: ClusterRendering | undefined =
        env.ANALYTICS_DRIVER === 'clickhouse' && env.CLICKHOUSE_CLUSTER
          ? { cluster: env.CLICKHOUSE_CLUSTER, zooKeeperPath: env.CLICKHOUSE_ZOOKEEPER_PATH }
          : undefined;
      if (env.ANALYTICS_DRIVER === 'clickhouse') {
        const { createClickHouseAnalyticsStore } = await import('@pylon/adapters/clickhouse');
        b.analytics = await createClickHouseAnalyticsStore({
          url: env.CLICKHOUSE_URL!,
          ...(env.CLICKHOUSE_USER ? { username: env.CLICKHOUSE_USER } : {}),
          ...(env.CLICKHOUSE_PASSWORD ? { password: env.CLICKHOUSE_PASSWORD } : {}),
          ...(env.CLICKHOUSE_DATABASE ? { database: env.CLICKHOUSE_DATABASE } : {}),
          ...(clusterRendering ? { cluster: clusterRendering } : {}),
        });
      } else {
        const { createChdbAnalyticsStore } = await import('@pylon/adapters/chdb');
        b.analytics = await createChdbAnalyticsStore({ path: join(dataDir, 'analytics') });
      }
      const a = b.analytics;
      opened.push({ name: 'analytics', close: () => a.close() });
      // Under a fenced lease: replicas starting together never run a migration twice.
      if (env.MIGRATE_AT_START || options.migrate) {
        let done = false;
        // The lease lives in the ClickHouse server itself (every process that migrates it reaches it);
        // an embedded chDB data dir is one process's, so it needs none.
        const lock = env.ANALYTICS_DRIVER === 'clickhouse' ? { analytics: true as const } : undefined;
        const render = clusterRendering ? { render: clusterRenderer(clusterRendering) } : {};
        const migrated = runAnalyticsMigrations({ analytics: a, ...(lock ? { lock } : {}), ...render, logger, retention: retentionFromEnv(env) }).then(() => {
          done = true;
        });
        b.migrated = migrated;
        if (options.deferMigrations) {
          // Handled where the caller awaits `migrated`; no unhandled rejection meanwhile.
          migrated.catch(() => undefined);
          // Whoever reads or writes before they are applied waits for them (the migrations run on `a` itself).
          b.analytics = afterMigrations(a, migrated);
          b.checks.analytics = () => (done ? a.ping() : Promise.reject(new Error('analytics migrations are still running')));
        } else {
          await migrated;
          b.checks.analytics = () => a.ping();
        }
      } else {
        b.checks.analytics = () => a.ping();
      }
    }
    if (want.includes('cache')) {
      opening = 'cache';
      if (env.CACHE_DRIVER === 'redis') {
        const { createRedisCache, createRedisLeases, createRedisPubSub } = await import('@pylon/adapters/redis');
        b.cache = createRedisCache({ url: env.REDIS_URL! });
        b.pubsub = createRedisPubSub({ url: env.REDIS_URL! });
        b.leases = createRedisLeases({ url: env.REDIS_URL!, keyPrefix: 'pylon:lease:' });
      } else {
        const { createMemoryCache, createMemoryLeases, createMemoryPubSub } = await import('@pylon/adapters/memory');
        b.cache = createMemoryCache();
        b.pubsub = createMemoryPubSub();
        b.leases = createMemoryLeases();
      }
      const c = b.cache;
      const p = b.pubsub;
      const l = b.leases;
      opened.push({
        name: 'cache',
        close: async () => {
          await l?.close();
          await p.close();
          await c.close();
        },
      });
      b.checks.cache = () => c.ping();
    }
    if (want.includes('stream')) {
      opening = 'stream';
      if (env.STREAM_DRIVER === 'kafka') {
        const { createKafkaStream } = await import('@pylon/adapters/kafka');
        b.stream = createKafkaStream(kafkaOptions(env, clientId, logger));
      } else if (env.STREAM_DRIVER === 'redis') {
        const { createRedisStream } = await import('@pylon/adapters/redis');
        b.stream = createRedisStream(redisStreamOptions(env, logger));
      } else if (env.STREAM_DRIVER === 'memory') {
        const { createMemoryStream } = await import('@pylon/adapters/memory');
        b.stream = createMemoryStream();
      } else {
        const { createLmdbStream } = await import('@pylon/adapters/lmdb');
        b.stream = createLmdbStream({ path: join(dataDir, 'stream') });
      }
      const s = b.stream;
      b.spool = createFileSpool(spoolDir(dataDir));
      opened.push({ name: 'stream', close: () => s.close() });
      b.checks.stream = () => s.ping();
    }
    if (want.includes('blobs')) {
      opening = 'blobs';
      if (env.BLOBS_DRIVER === 's3') {
        const { createS3BlobStore } = await import('@pylon/adapters/s3');
        b.blobs = createS3BlobStore({
          bucket: env.S3_BUCKET!,
          endpoint: env.S3_ENDPOINT,
          region: env.S3_REGION,
          accessKeyId: env.S3_ACCESS_KEY_ID,
          secretAccessKey: env.S3_SECRET_ACCESS_KEY,
          prefix: env.S3_PREFIX,
        });
      } else {
        const { createLocalBlobStore } = await import('@pylon/adapters/local');
        b.blobs = createLocalBlobStore({ dir: join(dataDir, 'blobs') });
      }
      const bl = b.blobs;
      opened.push({ name: 'blobs', close: () => bl.close() });
      b.checks.blobs = () => bl.ping();
    }
  } catch (e) {
    await b.close().catch(() => undefined);
    if (opening) tagBackend(e, opening);
    throw e;
  }
  return b;
}

const failedBackends = new WeakMap<object, string>();

/** Marks `err` as the failure of backend `name` (the first mark wins: the innermost cause). */
export function tagBackend(err: unknown, name: string): void {
  if (typeof err === 'object' && err !== null && !failedBackends.has(err)) failedBackends.set(err, name);
}

/** The backend an error came from while it was being opened or checked, when it is known. */
export const failedBackend = (err: unknown): string | undefined => (typeof err === 'object' && err !== null ? failedBackends.get(err) : undefined);

/**
 * A rate limiter on the process's cache backend: Redis (shared by replicas, with an in-memory
 * insurance limiter) when CACHE_DRIVER=redis, in-process counters otherwise.
 */
export async function createRateLimiter(env: Pick<BackendEnv, 'CACHE_DRIVER' | 'REDIS_URL'>, spec: RateLimitSpec): Promise<RateLimiter> {
  if (env.CACHE_DRIVER === 'redis' && env.REDIS_URL) {
    const { createRedisRateLimiter } = await import('@pylon/adapters/redis');
    return createRedisRateLimiter({ ...spec, url: env.REDIS_URL });
  }
  const { createMemoryRateLimiter } = await import('@pylon/adapters/memory');
  return createMemoryRateLimiter(spec);
}
