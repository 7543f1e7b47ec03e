/**
 * The numbered-migration runner both analytics adapters use: `NNN_name.sql` files, applied in
 * version order one statement at a time and recorded in `schema_migrations`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANALYTICS_MIGRATIONS_DIR } from '@pylon/kit/analytics-schema';
import { AppError } from '@pylon/kit/errors';
import type { AnalyticsStore, MigrateOptions } from '@pylon/kit/ports/analytics';
import { analyticsError } from './analytics.shared.js';
import { splitSqlStatements } from './analytics.sql-tokenizer.js';
import { clusterRenderer, type ClusterRendering } from './analytics.cluster.js';

/** `services/kit/migrations/analytics/` (the kit owns the schema; this runner applies it). */
export const DEFAULT_ANALYTICS_MIGRATIONS_DIR = ANALYTICS_MIGRATIONS_DIR;

export interface MigrationFile {
  version: number;
  /** File name without `.sql`, e.g. `001_telemetry`; what `migrate()` returns and records. */
  name: string;
  path: string;
}

const MIGRATION_FILE = /^(\d+)_([A-Za-z0-9_-]+)\.sql$/;

/** Numbered `NNN_name.sql` files in `dir`, in version order. Other files are ignored. */
export async function listMigrations(dir: string = DEFAULT_ANALYTICS_MIGRATIONS_DIR): Promise<MigrationFile[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (e) {
    throw analyticsError('INTERNAL', 'analytics migrations directory is not readable', e, { op: 'migrate' });
  }
  const files: MigrationFile[] = [];
  const seen = new Map<number, string>();
  for (const entry of entries) {
    if (!entry.endsWith('.sql')) continue;
    const m = MIGRATION_FILE.exec(entry);
    if (!m?.[1]) {
      throw new AppError('INTERNAL', `analytics migration file '${entry}' is not named NNN_name.sql`, { op: 'migrate' });
    }
    const version = Number(m[1]);
    const name = entry.slice(0, -'.sql'.length);
    const clash = seen.get(version);
    if (clash) {
      throw new AppError('INTERNAL', `analytics migrations '${clash}' and '${name}' share version ${version}`, {
        op: 'migrate',
      });
    }
    seen.set(version, name);
    files.push({ version, name, path: join(dir, entry) });
  }
  return files.sort((a, b) => a.version - b.version);
}

const CREATE_SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  applied_at DateTime64(3, 'UTC')
) ENGINE = MergeTree ORDER BY version`;

const RECORD_MIGRATION = `INSERT INTO schema_migrations (version, name, applied_at)
SELECT {version:UInt32}, {name:String}, now64(3, 'UTC')`;

/**
 * A store that runs several statements in ONE engine call, in order, stopping at the first that
 * fails (chDB's embedded engine). The statements of every pending file then go in one call instead
 * of one call each: on a new data dir that is ~70 round trips fewer, each of which waited for the
 * process's event loop (busy loading and building the rest of the process at start).
 */
export interface ScriptTarget {
  execScript(statements: readonly string[]): Promise<void>;
}

/** RECORD_MIGRATION with its values inlined (a script takes no parameters): the version is a number, the name matches MIGRATION_FILE. */
const recordStatement = (file: MigrationFile) =>
  `INSERT INTO schema_migrations (version, name, applied_at) SELECT ${file.version}, '${file.name}', now64(3, 'UTC')`;

/**
 * Applies every not-yet-recorded migration in version order and records it; returns the names
 * applied (empty when up to date). ClickHouse has no transactional DDL: a file that fails part-way
 * is not recorded and is re-run from its first statement, so write statements that tolerate a
 * re-run (`CREATE TABLE IF NOT EXISTS`, `ADD COLUMN IF NOT EXISTS`, ...). There is no cross-process
 * lock here: the caller holds one (services/composition analytics-migrations.ts) and checks it in
 * `options.beforeStatement`.
 */
export async function runMigrations(
  target: Pick<AnalyticsStore, 'query' | 'exec'> & Partial<ScriptTarget>,
  dir: string = DEFAULT_ANALYTICS_MIGRATIONS_DIR,
  options: MigrateOptions & { cluster?: ClusterRendering | undefined } = {},
): Promise<string[]> {
  const files = await listMigrations(dir);
  const before = options.beforeStatement ?? (async () => undefined);
  // Cluster: every statement rendered (ON CLUSTER, Replicated engines), the applied files' too, in
  // order, so a later `CREATE TABLE b AS a` knows a's engine; single node: the text as written.
  const render = options.cluster ? clusterRenderer(options.cluster) : (statement: string) => statement;
  const exec: typeof target.exec = async (sql, params) => {
    await before();
    await target.exec(sql, params);
  };
  await exec(render(CREATE_SCHEMA_MIGRATIONS));
  const rows = await target.query<{ version: number; name: string }>('SELECT version, any(name) AS name FROM schema_migrations GROUP BY version');
  const applied = new Map(rows.map((r) => [Number(r.version), r.name]));
  const done: string[] = [];
  // Each pending file's statements, then its record: in one call where the store takes scripts
  // (the same order, and a failure stops there, so a file is recorded only when all of it ran).
  const script: string[] = [];
  for (const file of files) {
    const recorded = applied.get(file.version);
    // A version applied under another name is another migration (renumbered or renamed after it
    // ran): skipping it silently would leave the store without this file's statements.
    if (recorded !== undefined && recorded !== file.name) {
      throw new AppError(
        'INTERNAL',
        `analytics migration ${file.version} was applied as '${recorded}' but the file with that number is now '${file.name}'; give the file a new number`,
        { op: 'migrate' },
      );
    }
    if (recorded !== undefined) {
      if (options.cluster) splitSqlStatements(await readFile(file.path, 'utf8')).forEach((statement) => render(statement));
      continue;
    }
    const sql = await readFile(file.path, 'utf8');
    if (target.execScript) {
      script.push(...splitSqlStatements(sql).map(render), recordStatement(file));
    } else {
      for (const statement of splitSqlStatements(sql)) await exec(render(statement));
      await exec(RECORD_MIGRATION, { version: file.version, name: file.name });
    }
    done.push(file.name);
  }
  if (script.length) {
    await before();
    await target.execScript!(script);
  }
  return done;
}
