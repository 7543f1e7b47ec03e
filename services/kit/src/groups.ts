/**
 * Group trees. Devices, media, playlists, templates and schedules each have groups (id, name,
 * parentId); every `...Groups` query shows them with member counts and nesting levels, flat or
 * as a tree. One implementation, so every resource nests and counts the same way.
 */

/** What a stored group needs to be placed in a tree. */
export interface GroupNode {
  id: string;
  name: string;
  parentId?: string | null;
}

export interface GroupView {
  id: string;
  name: string;
  parentId: string | null;
  /** Members directly in this group (not in its sub-groups). */
  count: number;
  /** 0 for top-level groups, 1 for their children, and so on. */
  level: number;
  /** Sub-groups; filled in tree form, empty in the flat list. */
  children: GroupView[];
}

/**
 * Builds group views from the groups (in the order children should appear, e.g. by name) and the
 * groupId of every member (null/undefined for members in no group).
 *
 * Flat: every group exactly once, each parent before its children (depth-first).
 * Tree: the top-level groups, each with its nested children.
 *
 * Invariant: every group appears exactly once. A group whose parent no longer exists is top-level;
 * a parent cycle (A under B under A) is cut where it closes: the first of its groups in input order
 * becomes top-level.
 */
export function buildGroupViews(groups: readonly GroupNode[], memberGroupIds: Iterable<string | null | undefined>, opts: { tree?: boolean } = {}): GroupView[] {
  const counts = new Map<string, number>();
  for (const id of memberGroupIds) if (id) counts.set(id, (counts.get(id) ?? 0) + 1);

  const known = new Set(groups.map((g) => g.id));
  const childrenOf = new Map<string, GroupNode[]>();
  const roots: GroupNode[] = [];
  for (const g of groups) {
    const parent = g.parentId && g.parentId !== g.id && known.has(g.parentId) ? g.parentId : null;
    if (parent === null) {
      roots.push(g);
      continue;
    }
    const list = childrenOf.get(parent) ?? [];
    list.push(g);
    childrenOf.set(parent, list);
  }

  const flat: GroupView[] = [];
  const placed = new Set<string>();
  const place = (g: GroupNode, level: number): GroupView => {
    placed.add(g.id);
    const view: GroupView = { id: g.id, name: g.name, parentId: g.parentId ?? null, count: counts.get(g.id) ?? 0, level, children: [] };
    flat.push(view);
    for (const child of childrenOf.get(g.id) ?? []) {
      if (!placed.has(child.id)) view.children.push(place(child, level + 1));
    }
    return view;
  };

  const top: GroupView[] = [];
  for (const g of roots) top.push(place(g, 0));
  // Groups left over sit on a parent cycle; nothing reaches them from the roots.
  for (const g of groups) if (!placed.has(g.id)) top.push(place(g, 0));

  if (opts.tree) return top;
  for (const v of flat) v.children = [];
  return flat;
}
