import { listQuery, whereToFilter, AppError, type FieldMap, type Filter, type ListArgs, type Principal } from '@pylon/kit';
import { onlineCutoff } from '../domain/device.js';
import type { Device, DeviceRepository } from '../device.repository.js';

export interface DeviceQuery extends ListArgs {
  id?: string[] | null;
  groupId?: string[] | null;
  groupName?: string[] | null;
  deviceTypeId?: string[] | null;
  orgId?: string | null;
  tag?: string[] | null;
  isOnline?: boolean | null;
  /** Only the device with this registration key (in the caller's account). */
  registrationKey?: string | null;
}

export interface ListDevicesDeps {
  repo: DeviceRepository;
  onlineWindowSeconds: number;
  now?: () => number;
}

/** How the GraphQL where/order fields map onto stored device documents. */
export function deviceFields(cutoff: () => string): FieldMap {
  const onlineClause = (wantOnline: boolean): Filter =>
    wantOnline ? { 'pingData.timestamp': { $gte: cutoff() } } : { $or: [{ pingData: null }, { 'pingData.timestamp': { $lt: cutoff() } }] };
  return {
    id: { path: 'id', kind: 'string' },
    name: { path: 'name', kind: 'string' },
    tags: { path: 'tags', kind: 'stringList' },
    groupId: { path: 'groupId', kind: 'string' },
    groupName: { path: 'groupName', kind: 'string' },
    orgId: { path: 'orgId', kind: 'string' },
    createdOn: { path: 'createdAt', kind: 'date' },
    isOnline: {
      custom: (ops, name) => {
        const keys = Object.keys(ops).filter((k) => ops[k] !== undefined && ops[k] !== null);
        if (keys.length === 0) return {};
        if (keys.length !== 1 || !['eq', 'neq'].includes(keys[0]!) || typeof ops[keys[0]!] !== 'boolean') {
          throw new AppError('BAD_USER_INPUT', `where.${name} takes eq or neq with a boolean`, { field: `where.${name}` });
        }
        const value = ops[keys[0]!] as boolean;
        return onlineClause(keys[0] === 'eq' ? value : !value);
      },
      sortPath: 'pingData.timestamp',
    },
    deviceType: {
      nested: {
        id: { path: 'deviceType.id', kind: 'string' },
        name: { path: 'deviceType.name', kind: 'string' },
        manufacturer: { path: 'deviceType.manufacturer', kind: 'string' },
      },
    },
    pingData: {
      nested: {
        cpuUsage: { path: 'pingData.cpuUsage', kind: 'number' },
        memoryUsage: { path: 'pingData.memoryUsage', kind: 'number' },
        diskUsage: { path: 'pingData.diskUsage', kind: 'number' },
        playerVersion: { path: 'pingData.playerVersion', kind: 'string' },
        ipAddress: { path: 'pingData.ipAddress', kind: 'string' },
        timestamp: { path: 'pingData.timestamp', kind: 'date' },
      },
    },
    location: {
      nested: {
        city: { path: 'location.city', kind: 'string' },
        state: { path: 'location.state', kind: 'string' },
        country: { path: 'location.country', kind: 'string' },
        latitude: { path: 'location.latitude', kind: 'number' },
        longitude: { path: 'location.longitude', kind: 'number' },
      },
    },
  };
}

/** Lists the caller's devices: argument filters AND where, sorted (default name), offset, limited. */
export async function listDevices(deps: ListDevicesDeps, principal: Principal, q: DeviceQuery): Promise<Device[]> {
  const now = deps.now ?? Date.now;
  const fields = deviceFields(() => onlineCutoff(now(), deps.onlineWindowSeconds));
  const clauses: Filter[] = [];
  if (q.orgId) clauses.push({ orgId: q.orgId });
  if (q.registrationKey !== undefined && q.registrationKey !== null) clauses.push({ registrationKey: q.registrationKey });
  if (q.isOnline !== undefined && q.isOnline !== null) clauses.push(whereToFilter({ isOnline: { eq: q.isOnline } }, fields));
  const { filter, options } = listQuery(q, fields, {
    anyOf: { id: q.id, groupId: q.groupId, groupName: q.groupName, 'deviceType.id': q.deviceTypeId, tags: q.tag },
    clauses,
  });
  return deps.repo.findDevices(principal.accountId, filter, options);
}
