/**
 * The report directory over the devices, content and scheduling subgraphs' GraphQL (distributed
 * mode), asked as the caller, so only the caller's devices, media, playlists and schedules come
 * back. Ids go in slices of 500. Devices' off-hours (uptime over on-hours) come from the scheduling
 * process's internal route, as the caller.
 */
import { AppError, INTERNAL_TOKEN_HEADER, querySubgraphAs, type Principal, type SubgraphTarget } from '@pylon/kit';
import type { ReportDirectory } from '../ports/report-directory.js';

const SLICE = 500;

/** Each lookup: the subgraph's list query narrowed to the ids, `{ id name }` of each. */
const LOOKUPS = {
  device: { query: 'query($id: [String!], $limit: Int) { device(id: $id, limit: $limit) { id name } }', what: 'the devices' },
  media: { query: 'query($id: [String!], $limit: Int) { media(id: $id, limit: $limit) { id name } }', what: 'the media' },
  playlist: {
    query: 'query($id: [String], $limit: Int) { playlist(where: { id: { in: $id } }, limit: $limit) { id name } }',
    what: 'the playlists',
  },
  schedule: { query: 'query($id: [String!], $limit: Int) { schedule(id: $id, limit: $limit) { id name } }', what: 'the schedules' },
} as const;

async function names(t: SubgraphTarget, caller: Principal, ids: readonly string[], root: keyof typeof LOOKUPS): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += SLICE) {
    const slice = ids.slice(i, i + SLICE);
    const data = await querySubgraphAs<Record<string, { id: string; name: string }[] | null>>(
      t,
      caller,
      LOOKUPS[root].query,
      { id: slice, limit: slice.length },
      LOOKUPS[root].what,
    );
    for (const r of data[root] ?? []) out.set(r.id, r.name);
  }
  return out;
}

/** GraphQL's largest page of `device` (kit DEFAULT_LIST_LIMIT.max). */
const PAGE = 1000;

/** The caller's devices, page by page (offset), until a short page or `max`. */
async function listDevices(t: SubgraphTarget, caller: Principal, max: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let offset = 0; out.size < max; offset += PAGE) {
    const limit = Math.min(PAGE, max - out.size);
    const data = await querySubgraphAs<{ device: { id: string; name: string }[] | null }>(
      t,
      caller,
      'query($limit: Int, $offset: Int) { device(limit: $limit, offset: $offset) { id name } }',
      { limit, offset },
      'the devices',
    );
    const page = data.device ?? [];
    for (const r of page) out.set(r.id, r.name);
    if (page.length < limit) break;
  }
  return out;
}

/** Off-hours of the caller's devices by their power schedules (the scheduling process's internal route). */
async function powerOff(t: SubgraphTarget, caller: Principal, from: number, to: number): Promise<Map<string, [number, number][]>> {
  const url = new URL('/internal/power/off-windows', t.url);
  url.search = new URLSearchParams({ from: String(from), to: String(to) }).toString();
  const res = await fetch(url, { headers: { [INTERNAL_TOKEN_HEADER]: await t.tokens.sign(caller) }, signal: AbortSignal.timeout(t.timeoutMs ?? 5000) }).catch(
    () => null,
  );
  const body = res?.ok ? ((await res.json().catch(() => null)) as { devices?: Record<string, [number, number][]> } | null) : null;
  if (!body?.devices) throw new AppError('UNAVAILABLE', "the devices' power schedules could not be read; retry");
  return new Map(Object.entries(body.devices));
}

export function createHttpReportDirectory(o: { devices: SubgraphTarget; content: SubgraphTarget; scheduling: SubgraphTarget }): ReportDirectory {
  return {
    devices: (caller, ids) => names(o.devices, caller, ids, 'device'),
    media: (caller, ids) => names(o.content, caller, ids, 'media'),
    playlists: (caller, ids) => names(o.content, caller, ids, 'playlist'),
    schedules: (caller, ids) => names(o.scheduling, caller, ids, 'schedule'),
    listDevices: (caller, max) => listDevices(o.devices, caller, max),
    powerOff: (caller, from, to) => powerOff(o.scheduling, caller, from, to),
  };
}
