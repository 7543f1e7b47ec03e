/**
 * Insert deduplication, shared by both analytics adapters (chDB and ClickHouse server): the settings
 * that make a retried insert under the same token a no-op in the table and in every rollup its
 * materialized views feed (each table's window: migration 005).
 */
import { AppError } from '@pylon/kit/errors';
import type { InsertOptions } from '@pylon/kit/ports/analytics';

/**
 * The settings an insert adds for its deduplication token (none without one): the token, and
 * deduplication in the rollups fed by materialized views, so a retry after a failure part-way is
 * skipped in each table where it landed and completed in the others.
 */
export function deduplicationSettings(options?: InsertOptions): Record<string, string | number> {
  const token = options?.deduplicationToken;
  if (token === undefined) return {};
  if (!/^[A-Za-z0-9_:.-]{1,200}$/.test(token)) {
    throw new AppError('BAD_USER_INPUT', 'invalid insert deduplication token', { field: 'deduplicationToken' });
  }
  return { insert_deduplicate: 1, insert_deduplication_token: token, deduplicate_blocks_in_dependent_materialized_views: 1 };
}
