/** /devices/groups: list (flat, or nested with tree=true), create, update, delete (devices move up, never deleted). */
import { z } from 'zod';
import { snakeRecord } from '@pylon/kit';
import type { LegacyGroupFragment } from '@pylon/kit/generated/legacy-operations.generated';
import { defineResource, parseQuery } from './resource.js';
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

export const listDeviceGroups = defineResource<LegacyGroup[]>({
  method: 'get',
  path: '/devices/groups',
  operations: ['listDeviceGroups'],
  view: { root: 'groups', item: 'group' },
  async handle({ query, run }) {
    const { tree } = parseQuery(Query, { tree: query.tree });
    const data = await run('listDeviceGroups', { tree: tree === 'true' });
    return (data.deviceGroups ?? []).map(toLegacyGroup);
  },
});

export const createDeviceGroup = defineResource<LegacyGroup>({
  method: 'post',
  path: '/devices/groups',
  operations: ['createDeviceGroup'],
  view: { root: 'group' },
  status: 201,
  async handle({ body, run }) {
    const data = await run('createDeviceGroup', { input: groupInput(body) });
    return toLegacyGroup(payloadOf(data, 'createDeviceGroup').group as GroupData);
  },
});

export const updateDeviceGroup = defineResource<LegacyGroup>({
  method: 'put',
  path: '/devices/groups/:id',
  operations: ['updateDeviceGroup'],
  view: { root: 'group' },
  async handle({ params, body, run }) {
    const data = await run('updateDeviceGroup', { id: params.id, input: groupInput(body) });
    return toLegacyGroup(payloadOf(data, 'updateDeviceGroup').group as GroupData);
  },
});

export const deleteDeviceGroup = defineResource<{ id: string; deleted: boolean }>({
  method: 'delete',
  path: '/devices/groups/:id',
  operations: ['deleteDeviceGroup'],
  view: { root: 'group' },
  async handle({ params, run }) {
    const data = await run('deleteDeviceGroup', { id: params.id });
    return { id: String(payloadOf(data, 'deleteDeviceGroup').groupId), deleted: true };
  },
});
