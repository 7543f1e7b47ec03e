/**
 * What reports need from the other subgraphs: which device and media ids are the caller's, and the
 * devices' names. All-in-one answers from the repositories in-process (scoped to the account).
 */
import type { Principal } from '@pylon/kit';

export interface ReportDirectory {
  /** The caller's devices among `ids` (id -> name); unknown ids and other accounts' are absent. */
  devices(caller: Principal, ids: readonly string[]): Promise<Map<string, string>>;
  /** The caller's media among `ids` (id -> name); unknown ids and other accounts' are absent. */
  media(caller: Principal, ids: readonly string[]): Promise<Map<string, string>>;
}
