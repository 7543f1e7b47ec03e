/** The migrations job's settings (migrate.main.ts), declared once (operator docs and deployment checks read them too). */
import { z } from 'zod';
import { backendEnv, backendRules } from '@pylon/composition/backends';
import { envLogLevel } from '@pylon/kit';

/**
 * The stream topics the job creates use the same KAFKA_NUM_PARTITIONS and KAFKA_REPLICATION_FACTOR
 * (absent: the broker's default) as the serving processes, and their TLS and SASL (backendEnv).
 */
export const migrateEnv = backendEnv
  .extend({
    LOG_LEVEL: envLogLevel(),
    /** The first account's API key (16+ characters): created with its account and owner when no key has this value; empty: none. */
    SIGNAGE_BOOTSTRAP_API_KEY: z
      .string()
      .max(256)
      .refine((v) => v === '' || v.length >= 16, 'at least 16 characters (or empty: no bootstrap key)')
      .optional(),
    SIGNAGE_BOOTSTRAP_ACCOUNT_ID: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,100}$/)
      .default('main'),
    SIGNAGE_BOOTSTRAP_ACCOUNT_NAME: z.string().min(1).max(200).default('Pylon'),
    SIGNAGE_BOOTSTRAP_OWNER: z.string().min(2).max(100).default('owner@pylon.local'),
  })
  .check(...backendRules);

export type MigrateEnv = z.infer<typeof migrateEnv>;
