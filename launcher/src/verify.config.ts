/**
 * The self-check's settings (verify.main.ts): the same backend settings every role reads (so the
 * k8s Job takes the roles' ConfigMap and Secret as they are), plus its own. Command-line flags
 * name the servers the way an operator types them and override the environment; passwords and
 * keys come from the environment only (a flag would show in `ps` and in shell history).
 */
import { z } from 'zod';
import { backendEnv } from '@pylon/composition/backends';
import { envBool, envInt, envLogLevel } from '@pylon/kit';

export const verifyEnv = backendEnv.extend({
  LOG_LEVEL: envLogLevel('error'),
  /** Longest one check may take: a contract case, a server's first answer, a scenario's outcome. */
  VERIFY_TIMEOUT_MS: envInt(60_000, 1_000, 600_000),
  /** What runs: contracts, scenario (end to end), or all. */
  VERIFY_ONLY: z.enum(['all', 'contracts', 'scenario']).default('all'),
  /** Leave what the run created (its prefix is printed) instead of removing it. */
  VERIFY_KEEP: envBool(false),
  /** How long a server may take to answer its first ping before its row fails as unreachable. */
  VERIFY_CONNECT_TIMEOUT_MS: envInt(10_000, 500, 120_000),
});

export type VerifyEnv = z.infer<typeof verifyEnv>;

/** Flag -> setting. A flag given names a server to check; without it the environment's setting (if any) is used. */
export const VERIFY_FLAGS: Record<string, { env: keyof VerifyEnv; value: string; help: string }> = {
  '--kafka': { env: 'KAFKA_BROKERS', value: 'host:port,...', help: 'Kafka brokers (TLS/SASL: KAFKA_SSL, KAFKA_SASL_* from the environment)' },
  '--clickhouse': { env: 'CLICKHOUSE_URL', value: 'url', help: 'ClickHouse HTTP(S) URL (CLICKHOUSE_USER, CLICKHOUSE_PASSWORD from the environment)' },
  '--mongo': { env: 'MONGO_URL', value: 'mongodb://...', help: 'MongoDB connection string' },
  '--redis': { env: 'REDIS_URL', value: 'redis://...', help: 'Redis URL' },
  '--s3': { env: 'S3_BUCKET', value: 'bucket', help: 'S3 bucket (S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY from the environment)' },
  '--s3-endpoint': { env: 'S3_ENDPOINT', value: 'url', help: 'S3-compatible endpoint (absent: AWS)' },
  '--s3-region': { env: 'S3_REGION', value: 'region', help: 'S3 region (default us-east-1)' },
  '--only': { env: 'VERIFY_ONLY', value: 'contracts|scenario', help: 'run only the contract suites or only the end-to-end scenario' },
  '--timeout-ms': { env: 'VERIFY_TIMEOUT_MS', value: 'ms', help: 'longest one check may take (default 60000)' },
};

export const VERIFY_USAGE = [
  'usage: npm run verify -- [--kafka <brokers>] [--clickhouse <url>] [--mongo <url>] [--redis <url>] [--s3 <bucket> [--s3-endpoint <url>]] [--keep]',
  '       (in the image: node --conditions=pylon-dist launcher/dist/role.main.js verify ...)',
  "Checks the given servers (or those the role settings in the environment name) with the adapters' contract suites",
  'and an end-to-end scenario; ports not given run the scenario on embedded stores. Exit 0: every row passed.',
  ...Object.entries(VERIFY_FLAGS).map(([f, d]) => `  ${`${f} <${d.value}>`.padEnd(32)} ${d.help} [${d.env}]`),
  `  ${'--keep'.padEnd(32)} leave what the run created (its prefix is printed) [VERIFY_KEEP]`,
].join('\n');

/** The environment with the flags applied, or a usage problem naming the flag. */
export function applyFlags(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): { env: Record<string, string | undefined> } | { problem: string } {
  const out = { ...env };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--keep') {
      out.VERIFY_KEEP = 'true';
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = VERIFY_FLAGS[flag];
    if (!spec) return { problem: `unknown argument '${flag.slice(0, 100)}'` };
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--'))) return { problem: `${flag} needs a value (${spec.value})` };
    out[spec.env] = value;
  }
  return { env: out };
}
