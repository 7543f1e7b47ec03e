/**
 * Cell values by column type: what a client may send and what is stored. Coercion is lenient in
 * the direction CSV needs ("12.5" for NUMBER, "yes"/"true"/"1" for BOOLEAN) and strict otherwise;
 * every refusal names the field (`data.<key>`) and says what was expected.
 */
import { type AppError, badInput } from '@pylon/kit';
import type { Cell, DataTableColumnRecord, RowData } from './data-table.js';
import { isoSeconds } from '@pylon/kit';

const MAX_TEXT = 10_000;
const TRUE = new Set(['true', 'yes', '1', 'y']);
const FALSE = new Set(['false', 'no', '0', 'n']);
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Why `value` is not a valid cell of `column` (null: it is); `out` receives the stored value. */
export function coerceCell(column: DataTableColumnRecord, value: unknown): { ok: true; value: Cell } | { ok: false; problem: string } {
  if (value === null || value === undefined || value === '') return { ok: true, value: null };
  const bad = (problem: string) => ({ ok: false as const, problem });
  let out: Cell;
  switch (column.type) {
    case 'NUMBER': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : NaN;
      if (!Number.isFinite(n)) return bad('must be a number');
      out = n;
      break;
    }
    case 'BOOLEAN': {
      if (typeof value === 'boolean') out = value;
      else if (typeof value === 'string' && TRUE.has(value.trim().toLowerCase())) out = true;
      else if (typeof value === 'string' && FALSE.has(value.trim().toLowerCase())) out = false;
      else return bad('must be a boolean (true or false)');
      break;
    }
    case 'DATE': {
      if (typeof value !== 'string') return bad('must be an ISO 8601 date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)');
      const s = value.trim();
      const t = DATE_ONLY.test(s) ? Date.parse(`${s}T00:00:00Z`) : DATE_TIME.test(s) ? Date.parse(s) : NaN;
      if (Number.isNaN(t)) return bad('must be an ISO 8601 date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)');
      out = isoSeconds(new Date(t));
      break;
    }
    case 'IMAGE': {
      if (typeof value !== 'string') return bad('must be an image URL (http or https)');
      let url: URL;
      try {
        url = new URL(value.trim());
      } catch {
        return bad('must be an image URL (http or https)');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return bad('must be an image URL (http or https)');
      out = value.trim();
      break;
    }
    default: {
      if (typeof value === 'number' || typeof value === 'boolean') out = String(value);
      else if (typeof value === 'string') out = value;
      else return bad('must be a string');
      if (out.length > MAX_TEXT) return bad(`must be at most ${MAX_TEXT} characters`);
    }
  }
  if (column.options && column.options.length > 0 && !column.options.includes(String(out))) return bad(`must be one of: ${column.options.join(', ')}`);
  return { ok: true, value: out };
}

function cellError(column: DataTableColumnRecord, problem: string): AppError {
  return badInput(`data.${column.key}`, `data.${column.key} ${problem}`);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

/**
 * Validates and coerces a row's data. `base` is the stored data of the row being changed (a
 * partial update); without it, the data is a new row's and column defaults fill missing cells.
 * Unknown keys and missing required cells are refused.
 */
export function validateRowData(columns: readonly DataTableColumnRecord[], input: unknown, base?: RowData): RowData {
  if (!isPlainObject(input)) throw badInput('data', 'data must be a JSON object of column key to value');
  const byKey = new Map(columns.map((c) => [c.key, c]));
  for (const k of Object.keys(input)) {
    if (!byKey.has(k)) throw badInput(`data.${k}`, `data.${k} is not a column of this table (known: ${columns.map((c) => c.key).join(', ') || 'none'})`);
  }
  const out: RowData = Object.create(null);
  for (const c of columns) {
    let cell: Cell;
    if (Object.prototype.hasOwnProperty.call(input, c.key)) {
      const r = coerceCell(c, input[c.key]);
      if (!r.ok) throw cellError(c, r.problem);
      cell = r.value;
    } else if (base) {
      cell = base[c.key] ?? null;
    } else {
      const r = c.default === null ? { ok: true as const, value: null } : coerceCell(c, c.default);
      cell = r.ok ? r.value : null;
    }
    if (cell === null && c.required) throw badInput(`data.${c.key}`, `data.${c.key} is required`);
    out[c.key] = cell;
  }
  return { ...out };
}

/** The sort-slot values of a row: `ix.s<slot>` for every sortable column. */
export function sortSlots(columns: readonly DataTableColumnRecord[], data: RowData): Record<string, Cell> {
  const ix: Record<string, Cell> = {};
  for (const c of columns) if (c.slot !== null && c.slot !== undefined) ix[`s${c.slot}`] = data[c.key] ?? null;
  return ix;
}

/** A snapshot's data projected onto today's columns (rollback after a schema change). */
export function projectData(columns: readonly DataTableColumnRecord[], data: Record<string, unknown>): RowData {
  const known: Record<string, unknown> = {};
  for (const c of columns) if (Object.prototype.hasOwnProperty.call(data, c.key)) known[c.key] = data[c.key];
  return validateRowData(columns, known);
}
