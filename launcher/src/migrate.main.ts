/**
 * The migrations job (`migrate` role; a one-shot container / Kubernetes Job, run before a rollout):
 * every schema change serving processes no longer make themselves (they run with
 * MIGRATE_AT_START=false). In order: document indexes (built, and ones no collection declares
 * dropped: MongoDB only changes them here), ClickHouse migrations, Kafka topics (every topic Pylon publishes to, dead letters and push events included), then the first
 * account and API key when SIGNAGE_BOOTSTRAP_API_KEY is set. Idempotent: runs on every deploy.
 */
import { createLogger, loadConfigOrExit, STREAM_TOPICS } from '@pylon/kit';
import { createBackends, kafkaOptions } from '@pylon/composition/backends';
import { bootstrapFirstAccount, IdentityRepository } from '@pylon/identity';
import { ALL_COLLECTIONS } from './collections.js';
import { migrateEnv } from './migrate.config.js';

const env = loadConfigOrExit(migrateEnv);
const logger = createLogger({ level: env.LOG_LEVEL, name: 'migrate' });
/** A tenant no account has: counting in it makes a collection wait for its index build. */
const PROBE_TENANT = '_migrations';

try {
  const started = Date.now();
  // createBackends runs the analytics migrations in migrate mode (ClickHouse or chDB).
  const backends = await createBackends(env, ['documents', 'analytics'], 'pylon-migrate', { migrate: true });
  try {
    for (const spec of ALL_COLLECTIONS) await backends.documents!.collection(spec).count(PROBE_TENANT);
    logger.info({ collections: ALL_COLLECTIONS.length }, 'document indexes up to date');
    logger.info('analytics migrations applied');
    if (env.STREAM_DRIVER === 'kafka') {
      const { createKafkaTopics } = await import('@pylon/adapters/kafka');
      // Connects as the serving processes do (TLS, SASL); their partitions and replication settings.
      const created = await createKafkaTopics({ ...kafkaOptions(env, 'pylon-migrate', logger), topics: STREAM_TOPICS });
      logger.info({ created }, 'stream topics up to date');
    }
    if (env.SIGNAGE_BOOTSTRAP_API_KEY) {
      const r = await bootstrapFirstAccount(new IdentityRepository(backends.documents!), {
        apiKey: env.SIGNAGE_BOOTSTRAP_API_KEY,
        accountId: env.SIGNAGE_BOOTSTRAP_ACCOUNT_ID,
        accountName: env.SIGNAGE_BOOTSTRAP_ACCOUNT_NAME,
        ownerUsername: env.SIGNAGE_BOOTSTRAP_OWNER,
      });
      logger.info({ accountId: r.accountId, created: r.created }, r.created ? 'first account and API key created' : 'bootstrap API key already present');
    }
    logger.info({ ms: Date.now() - started }, 'migrations done');
  } finally {
    await backends.close();
  }
  process.exit(0);
} catch (e) {
  logger.fatal({ err: e }, 'migrations failed');
  process.exit(1);
}
