import { z } from 'zod';

/** Thrown by loadConfig with every problem found, one per line. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses a flat environment with a zod schema and reports every error at once.
 * This and the composition roots are the only readers of process.env.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
}

/** Exits the process with the report when config is invalid; used by main.ts files. */
export function loadConfigOrExit<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  try {
    return loadConfig(schema, env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}

/** Env helpers: booleans written as true/false/1/0, ports, comma lists. */
export const envBool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? def : v === 'true' || v === '1' || v === 'yes'));
/** Another subgraph's base address: by default its compose/k8s service name on the subgraph port. */
export const envSubgraphUrl = (service: string) => z.string().url().default(`http://${service}:4001`);
export const envPort = (def: number) => z.coerce.number().int().min(0).max(65535).default(def);
export const envInt = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def);
export const envList = () =>
  z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    );
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const envLogLevel = (fallback: (typeof LOG_LEVELS)[number] = 'info') => z.enum(LOG_LEVELS).default(fallback);
/**
 * Express 'trust proxy': which hops may set X-Forwarded-For (the client address used by rate
 * limits and the audit trail). 'loopback' (default), 'true'/'false', a hop count, or addresses /
 * CIDRs / express names separated by commas (e.g. '10.0.0.0/8,uniquelocal').
 */
export const envTrustProxy = () =>
  z
    .string()
    .default('loopback')
    .transform((v): boolean | number | string => (v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v));
export type TrustProxy = boolean | number | string;
