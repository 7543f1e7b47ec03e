/**
 * The report directory over the devices and content subgraphs' GraphQL (distributed mode), asked
 * as the caller, so only the caller's devices and media come back. Ids go in slices of 500.
 */
import { querySubgraphAs, type Principal, type SubgraphTarget } from '@pylon/kit';
import type { ReportDirectory } from '../ports/report-directory.js';

const SLICE = 500;

async function names(t: SubgraphTarget, caller: Principal, ids: readonly string[], root: 'device' | 'media'): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += SLICE) {
    const slice = ids.slice(i, i + SLICE);
    const data = await querySubgraphAs<Record<string, { id: string; name: string }[] | null>>(
      t,
      caller,
      `query($id: [String!], $limit: Int) { ${root}(id: $id, limit: $limit) { id name } }`,
      { id: slice, limit: slice.length },
      root === 'device' ? 'the devices' : 'the media',
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

export function createHttpReportDirectory(o: { devices: SubgraphTarget; content: SubgraphTarget }): ReportDirectory {
  return {
    devices: (caller, ids) => names(o.devices, caller, ids, 'device'),
    media: (caller, ids) => names(o.content, caller, ids, 'media'),
    listDevices: (caller, max) => listDevices(o.devices, caller, max),
  };
}
