/**
 * What a screen's data-table module (a menu board) shows: the table's visible columns and its first
 * rows in table order, read as the screen's account (another account's table is simply not found).
 * The ETag is the table's generation, which every write bumps: a screen polling with If-None-Match
 * gets a body only after an edit.
 */
import { devicePrincipal } from '@pylon/kit';
import type { DataTablesRuntime } from '../../runtime.js';
import { listRows } from '../rows/read-rows.js';

/** Rows a screen shows at most (one page). */
export const PLAYER_ROWS = 100;

export interface PlayerRows {
  etag: string;
  body: {
    table_id: string;
    name: string;
    columns: { key: string; name: string; type: string }[];
    rows: Record<string, unknown>[];
  };
}

export async function playerRows(rt: DataTablesRuntime, device: { accountId: string; id: string }, tableId: string): Promise<PlayerRows | null> {
  const table = await rt.repo.getTable(device.accountId, tableId);
  if (!table) return null;
  const page = await listRows(rt, devicePrincipal(device.accountId, device.id), { tableId, pageSize: PLAYER_ROWS });
  const columns = table.columns.filter((c) => c.type !== 'HIDDEN').map((c) => ({ key: c.key, name: c.name, type: c.type }));
  return {
    etag: `"${table.id.slice(0, 40)}-g${page.generation}"`,
    body: {
      table_id: table.id,
      name: table.name,
      columns,
      rows: page.data.map((r) => Object.fromEntries(columns.map((c) => [c.key, r.data[c.key] ?? null]))),
    },
  };
}
