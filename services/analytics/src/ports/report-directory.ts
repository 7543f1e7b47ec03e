/**
 * What reports need from the other subgraphs: which device and media ids are the caller's, the
 * names of devices, playlists and schedules, and the caller's device list. All-in-one answers from the repositories
 * in-process (scoped to the account); distributed mode asks the subgraphs as the caller
 * (adapters/report-directory.http.ts).
 */
import type { Principal } from '@pylon/kit';

export interface ReportDirectory {
  /** The caller's devices among `ids` (id -> name); unknown ids and other accounts' are absent. */
  devices(caller: Principal, ids: readonly string[]): Promise<Map<string, string>>;
  /** The caller's media among `ids` (id -> name); unknown ids and other accounts' are absent. */
  media(caller: Principal, ids: readonly string[]): Promise<Map<string, string>>;
  /** The caller's playlists among `ids` (id -> name); unknown (deleted) ids and other accounts' are absent. */
  playlists(caller: Principal, ids: readonly string[]): Promise<Map<string, string>>;
  /** The caller's schedules among `ids` (id -> name); unknown (deleted) ids and other accounts' are absent. */
  schedules(caller: Principal, ids: readonly string[]): Promise<Map<string, string>>;
  /** The caller's devices (id -> name), at most `max` of them (the first by name, then id). */
  listDevices(caller: Principal, max: number): Promise<Map<string, string>>;
  /**
   * The stretches [from, to) (epoch ms) within [from, to) in which the displays of the caller's
   * devices are off by their power schedules, by device id (devices without a schedule are absent).
   * Uptime counts only the other minutes. Absent: uptime counts every minute.
   */
  powerOff?(caller: Principal, from: number, to: number): Promise<Map<string, [number, number][]>>;
}
