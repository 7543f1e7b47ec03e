/** /devices/groups: list (flat, or nested with tree=true), create, update, delete (devices move up, never deleted). */
import { z } from 'zod';
import { snakeRecord } from '@pylon/kit';
import type { LegacyGroupFragment } from '@pylon/kit/generated/legacy-operations.generated';
import { parseQuery, resource } from './resource.js';
import { groupInput, payloadOf } from './device.input.js';

/** A group as the legacy documents select it (LegacyGroup fragment), nested children when listed as a tree. */
type GroupData = LegacyGroupFragment & { children?: GroupData[] };

export interface LegacyGroup {
  id: string;
  name: string;
  parent_id: string | null;
  count: number;
  level: number;
  children: LegacyGroup[];
}

const GROUP_FIELDS = ['id', 'name', 'parent_id', 'count', 'level'] as const;
// Same case conversion as the REST record (kit snakeKeys); children always present, nested the same way.
const toLegacyGroup = (g: GroupData): LegacyGroup => ({
  ...(snakeRecord(g, GROUP_FIELDS) as Omit<LegacyGroup, 'children'>),
  children: (g.children ?? []).map(toLegacyGroup),
});

const Query = z.object({ tree: z.enum(['true', 'false']).optional() });

export const listDeviceGroups = resource('GET /devices/groups', 'listDeviceGroups', { root: 'groups', item: 'group' }, async ({ query, call }) => {
  const { tree } = parseQuery(Query, { tree: query.tree });
  return ((await call({ tree: tree === 'true' })).deviceGroups ?? []).map(toLegacyGroup);
});

export const createDeviceGroup = resource(
  'POST /devices/groups',
  'createDeviceGroup',
  { root: 'group' },
  async ({ body, call }) => toLegacyGroup(payloadOf(await call({ input: groupInput(body) }), 'createDeviceGroup').group as GroupData),
  { status: 201 },
);

export const updateDeviceGroup = resource('PUT /devices/groups/:id', 'updateDeviceGroup', { root: 'group' }, async ({ params, body, call }) =>
  toLegacyGroup(payloadOf(await call({ id: params.id, input: groupInput(body) }), 'updateDeviceGroup').group as GroupData),
);

export const deleteDeviceGroup = resource('DELETE /devices/groups/:id', 'deleteDeviceGroup', { root: 'group' }, async ({ params, call }) => ({
  id: String(payloadOf(await call({ id: params.id }), 'deleteDeviceGroup').groupId),
  deleted: true,
}));
