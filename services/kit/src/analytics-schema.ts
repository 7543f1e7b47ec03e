/**
 * Where the analytics schema lives: the numbered migrations of services/kit/migrations/analytics/,
 * which both analytics adapters (chDB and ClickHouse server, in @pylon/adapters) run. The SQL
 * stays in the kit because it is the tables every service reads and writes, not one engine's.
 */
import { fileURLToPath } from 'node:url';

/** `services/kit/migrations/analytics/`, resolved relative to this module (src/ or dist/ alike). */
export const ANALYTICS_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/analytics/', import.meta.url));
