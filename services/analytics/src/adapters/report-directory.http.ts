/**
 * The report directory over the devices, content and scheduling subgraphs' GraphQL (distributed
 * mode), asked as the caller, so only the caller's devices, media, playlists and schedules come
 * back. Ids go in slices of 500.
 */
import { querySubgraphAs, type Principal, type SubgraphTarget } from '@pylon/kit';
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

export function createHttpReportDirectory(o: { devices: SubgraphTarget; content: SubgraphTarget; scheduling: SubgraphTarget }): ReportDirectory {
  return {
    devices: (caller, ids) => names(o.devices, caller, ids, 'device'),
    media: (caller, ids) => names(o.content, caller, ids, 'media'),
    playlists: (caller, ids) => names(o.content, caller, ids, 'playlist'),
    schedules: (caller, ids) => names(o.scheduling, caller, ids, 'schedule'),
    listDevices: (caller, max) => listDevices(o.devices, caller, max),
  };
}
