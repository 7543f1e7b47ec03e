/** The migrations job's settings (migrate.main.ts), declared once (operator docs and deployment checks read them too). */
import { z } from 'zod';
import { backendEnv, backendRules } from '@pylon/composition/backends';
import { envInt, envLogLevel } from '@pylon/kit';

export const migrateEnv = backendEnv
  .extend({
    LOG_LEVEL: envLogLevel(),
    /** Partitions of each stream topic the job creates (existing topics are left as they are). */
    KAFKA_TOPIC_PARTITIONS: envInt(3, 1, 1000),
    KAFKA_REPLICATION_FACTOR: envInt(1, 1, 10),
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
