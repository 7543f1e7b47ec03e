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

export function createHttpReportDirectory(o: { devices: SubgraphTarget; content: SubgraphTarget }): ReportDirectory {
  return {
    devices: (caller, ids) => names(o.devices, caller, ids, 'device'),
    media: (caller, ids) => names(o.content, caller, ids, 'media'),
  };
}
