/**
 * Every tool the MCP server offers, in the order an agent reads them.
 *
 * Extension point: a feature adds its tools as one module of this folder exporting defineTool(...)
 * specs, and one line here, as emergency overrides (overrides.ts) did: start and cancel are
 * `kind: 'destructive'` (they take over screens), so they state the screens they would reach and
 * need `confirm: true` through tool.ts, like send_command.
 */
import type { AnyToolSpec } from '../tool.js';
import { exportProofOfPlay, playStats, uptime } from './analytics.js';
import { deleteTableRow, editTableRow, readTableRows } from './data-tables.js';
import { cancelOverride, listOverrides, startOverride } from './overrides.js';
import { explainScreen, findScreens, screenTimeline } from './screens.js';
import { scheduleContent, sendCommand } from './writes.js';

export const TOOLS: readonly AnyToolSpec[] = [
  findScreens,
  explainScreen,
  screenTimeline,
  scheduleContent,
  sendCommand,
  startOverride,
  cancelOverride,
  listOverrides,
  playStats,
  uptime,
  exportProofOfPlay,
  readTableRows,
  editTableRow,
  deleteTableRow,
];
