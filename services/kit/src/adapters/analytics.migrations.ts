/**
 * Shared by both analytics adapters (chDB and ClickHouse server):
 *  - the numbered-migration runner (`NNN_name.sql` files, recorded in `schema_migrations`);
 *  - the JSONEachRow codec (rows in, rows out) so both adapters return identical shapes;
 *  - identifier checks and error wrapping.
 * Nothing here loads an engine, so the ClickHouse adapter never pulls in chDB's native addon.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError, type ErrorCode } from '../errors.js';
import type { AnalyticsStore, SqlParams } from '../ports/analytics.js';

/** `services/kit/migrations/analytics/`, resolved relative to this module. */
export const DEFAULT_ANALYTICS_MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/analytics/', import.meta.url));

/** Session/request settings both adapters apply, so the same SQL yields the same JSON. */
export const ANALYTICS_SETTINGS = {
  /** 64-bit integers as bare JSON numbers; {@link parseJsonEachRow} turns unsafe ones into strings. */
  output_format_json_quote_64bit_integers: 0,
  /** DateTime/DateTime64 as ISO 8601 with `Z` (what `new Date()` parses unambiguously). */
  date_time_output_format: 'iso',
  /** Inserted rows may carry ISO 8601 strings (`Date` objects serialise to those). */
  date_time_input_format: 'best_effort',
} as const;

/** Per-insert settings: unknown keys in a row are an error, not silently dropped. */
export const ANALYTICS_INSERT_SETTINGS = { input_format_skip_unknown_fields: 0 } as const;

export type AnalyticsOp = 'query' | 'exec' | 'insert' | 'ping' | 'open' | 'migrate';

/** ClickHouse error codes that mean "the caller's parameter is wrong". */
export const PARAM_ERROR_CODES: ReadonlySet<number> = new Set([
  456, // UNKNOWN_QUERY_PARAMETER: placeholder without a value
  457, // BAD_QUERY_PARAMETER: value does not parse as the placeholder's type
]);

/** An AppError carrying the original error as a non-enumerable `cause` (like `new Error(m, { cause })`). */
export function analyticsError(
  code: ErrorCode,
  message: string,
  cause: unknown,
  details: Record<string, unknown> = {},
): AppError {
  const err = new AppError(code, message, details);
  if (cause !== undefined) {
    Object.defineProperty(err, 'cause', { value: cause, enumerable: false, writable: true, configurable: true });
  }
  return err;
}

/** BAD_USER_INPUT for a parameter the engine refused; names the parameter when the engine did. */
export function paramError(cause: unknown, op: AnalyticsOp): AppError {
  const msg = cause instanceof Error ? cause.message : String(cause);
  const m = /query parameter '([^']+)'/.exec(msg) ?? /Substitution `([^`]+)`/.exec(msg);
  const details: Record<string, unknown> = { op };
  if (m?.[1]) details.field = m[1];
  return analyticsError('BAD_USER_INPUT', 'invalid analytics query parameter', cause, details);
}

export const hasParams = (params?: SqlParams): params is SqlParams =>
  params !== undefined && Object.keys(params).length > 0;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** Table names are spliced into `INSERT INTO <table>`, so only plain (optionally db-qualified) names pass. */
export function assertTableName(table: string): void {
  if (!IDENTIFIER.test(table)) {
    throw new AppError('BAD_USER_INPUT', 'invalid analytics table name', { field: 'table' });
  }
}

/** Drops trailing `;` and whitespace (the server client appends `FORMAT ...` to the text). */
export function trimStatement(sql: string): string {
  return sql.replace(/[\s;]+$/, '');
}

// ---------------------------------------------------------------------------------------------
// JSONEachRow codec
// ---------------------------------------------------------------------------------------------

const bigintSafe = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : value);

/** One JSON object per row, newline-terminated. `Date` → ISO string, `bigint` → decimal string. */
export function toJsonEachRowText(rows: readonly Record<string, unknown>[]): string {
  let out = '';
  try {
    for (const row of rows) out += JSON.stringify(row) + '\n';
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    out = '';
    try {
      for (const row of rows) out += JSON.stringify(row, bigintSafe) + '\n';
    } catch (e2) {
      throw analyticsError('BAD_USER_INPUT', 'analytics rows are not serialisable', e2, { op: 'insert' });
    }
  }
  return out;
}

export const toJsonEachRow = (rows: readonly Record<string, unknown>[]): Buffer =>
  Buffer.from(toJsonEachRowText(rows), 'utf8');

/** Stringifies one row (bigint-safe); the server client's `json.stringify` hook. */
export function stringifyRow(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    return JSON.stringify(value, bigintSafe);
  }
}

/**
 * A bare integer of 16+ digits in value position. Only then can an integer exceed 2^53, so only
 * then is the slower lossless path needed (a false hit inside a string is harmless, just slower).
 */
const MAYBE_UNSAFE_INT = /[:,[]-?\d{16,}[,\]}]/;

/**
 * Quotes bare integers beyond Number.MAX_SAFE_INTEGER so JSON.parse keeps them exact (as strings).
 * Walks the text outside string literals only; floats and safe integers are left alone.
 */
export function quoteUnsafeIntegers(text: string): string {
  const parts: string[] = [];
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else if (d === 34) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      let integer = true;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d >= 48 && d <= 57) j++;
        else if (d === 46 /* . */ || d === 101 /* e */ || d === 69 /* E */ || d === 43 /* + */ || d === 45) {
          integer = false;
          j++;
        } else break;
      }
      if (integer && j - i >= 16 && !Number.isSafeInteger(Number(text.slice(i, j)))) {
        parts.push(text.slice(last, i), '"', text.slice(i, j), '"');
        last = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join('');
}

/**
 * Parses JSONEachRow output. Integers come back as numbers when safe and as decimal strings
 * when beyond ±2^53 (never silently rounded). Empty output → [].
 */
export function parseJsonEachRow<T>(text: string): T[] {
  const body = text.trimEnd();
  if (body.length === 0) return [];
  const safe = MAYBE_UNSAFE_INT.test(body) ? quoteUnsafeIntegers(body) : body;
  // Rows are newline-separated and JSON strings never hold a raw newline: one parse for all rows.
  return JSON.parse('[' + safe.replaceAll('\n', ',') + ']') as T[];
}

// ---------------------------------------------------------------------------------------------
// Migrations
// ---------------------------------------------------------------------------------------------

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

/**
 * Splits a migration file into statements at `;` that ends a line (trailing blanks or a `--`
 * comment may follow). Semicolons inside quotes, backticks and comments, or mid-line, do not
 * split. Fragments that hold only comments/whitespace are dropped.
 */
export function splitSqlStatements(sql: string): string[] {
  const out: string[] = [];
  const n = sql.length;
  let start = 0;
  let hasCode = false;
  let i = 0;

  const restOfLineIsBlank = (from: number): boolean => {
    let j = from;
    while (j < n && (sql[j] === ' ' || sql[j] === '\t' || sql[j] === '\r')) j++;
    return j >= n || sql[j] === '\n' || (sql[j] === '-' && sql[j + 1] === '-');
  };
  const flush = (end: number) => {
    if (hasCode) out.push(sql.slice(start, end).trim());
    hasCode = false;
  };

  while (i < n) {
    const c = sql[i];
    if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      hasCode = true;
      let j = i + 1;
      while (j < n) {
        if (sql[j] === '\\') j += 2;
        else if (sql[j] === c) {
          if (sql[j + 1] === c) j += 2; // doubled quote
          else break;
        } else j++;
      }
      i = j + 1;
      continue;
    }
    if (c === ';' && restOfLineIsBlank(i + 1)) {
      flush(i);
      start = i + 1;
      i++;
      continue;
    }
    if (c !== undefined && !/\s/.test(c)) hasCode = true;
    i++;
  }
  flush(n);
  return out;
}

const CREATE_SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  applied_at DateTime64(3, 'UTC')
) ENGINE = MergeTree ORDER BY version`;

const RECORD_MIGRATION = `INSERT INTO schema_migrations (version, name, applied_at)
SELECT {version:UInt32}, {name:String}, now64(3, 'UTC')`;

/**
 * Applies every not-yet-recorded migration in version order and records it; returns the names
 * applied (empty when up to date). ClickHouse has no transactional DDL: a file that fails part-way
 * is not recorded and is re-run from its first statement, so write statements that tolerate a
 * re-run (`CREATE TABLE IF NOT EXISTS`, `ADD COLUMN IF NOT EXISTS`, ...). There is no cross-process
 * lock either; run migrations from one place (or rely on the same idempotence).
 */
export async function runMigrations(
  target: Pick<AnalyticsStore, 'query' | 'exec'>,
  dir: string = DEFAULT_ANALYTICS_MIGRATIONS_DIR,
): Promise<string[]> {
  const files = await listMigrations(dir);
  await target.exec(CREATE_SCHEMA_MIGRATIONS);
  const rows = await target.query<{ version: number }>('SELECT DISTINCT version FROM schema_migrations');
  const applied = new Set(rows.map((r) => Number(r.version)));
  const done: string[] = [];
  for (const file of files) {
    if (applied.has(file.version)) continue;
    const sql = await readFile(file.path, 'utf8');
    for (const statement of splitSqlStatements(sql)) await target.exec(statement);
    await target.exec(RECORD_MIGRATION, { version: file.version, name: file.name });
    done.push(file.name);
  }
  return done;
}
