import type { Principal } from '@pylon/kit';
import type { DeviceRepository } from '../device.repository.js';

export interface DeviceGroupView {
  id: string;
  name: string;
  parentId: string | null;
  count: number;
  level: number;
  children: DeviceGroupView[];
}

/**
 * Device groups with their direct device counts and nesting level. Flat: every group, parents
 * before children. Tree: top-level groups with nested children. A group whose parent no
 * longer exists is treated as top-level, so nothing disappears.
 */
export async function listDeviceGroups(repo: DeviceRepository, principal: Principal, tree: boolean): Promise<DeviceGroupView[]> {
  const tenant = principal.accountId;
  const [groups, devices] = await Promise.all([
    repo.listGroups(tenant),
    repo.findDevices(tenant, { groupId: { $ne: null } }, {}),
  ]);
  const counts = new Map<string, number>();
  for (const d of devices) if (d.groupId) counts.set(d.groupId, (counts.get(d.groupId) ?? 0) + 1);
  const byId = new Map(groups.map((g) => [g.id, g]));
  const children = new Map<string | null, typeof groups>();
  for (const g of groups) {
    const parent = g.parentId && byId.has(g.parentId) ? g.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(g);
    children.set(parent, list);
  }
  const flat: DeviceGroupView[] = [];
  const build = (parent: string | null, level: number, seen: Set<string>): DeviceGroupView[] =>
    (children.get(parent) ?? [])
      .filter((g) => !seen.has(g.id))
      .map((g) => {
        const view: DeviceGroupView = { id: g.id, name: g.name, parentId: g.parentId, count: counts.get(g.id) ?? 0, level, children: [] };
        flat.push(view);
        const kids = build(g.id, level + 1, new Set([...seen, g.id]));
        if (tree) view.children = kids;
        return view;
      });
  const roots = build(null, 0, new Set());
  return tree ? roots : flat;
}
