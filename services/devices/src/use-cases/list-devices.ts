import { orderToSort, resolveLimit, whereToFilter, AppError, type FieldMap, type Filter, type Principal } from '@pylon/kit';
import { onlineCutoff } from '../domain/device.js';
import type { Device, DeviceRepository } from '../device.repository.js';

export interface DeviceQuery {
  id?: string[] | null;
  groupId?: string[] | null;
  groupName?: string[] | null;
  deviceTypeId?: string[] | null;
  orgId?: string | null;
  tag?: string[] | null;
  isOnline?: boolean | null;
  limit?: number | null;
  /** Items to skip (REST page * take). */
  offset?: number | null;
  where?: unknown;
  order?: unknown;
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

/** Lists the caller's devices: argument filters AND where, sorted, limited. */
export async function listDevices(deps: ListDevicesDeps, principal: Principal, q: DeviceQuery): Promise<Device[]> {
  const now = deps.now ?? Date.now;
  const fields = deviceFields(() => onlineCutoff(now(), deps.onlineWindowSeconds));
  const clauses: Filter[] = [];
  const anyOf = (path: string, values: string[] | null | undefined) => {
    if (values && values.length) clauses.push({ [path]: { $in: values } });
  };
  anyOf('id', q.id);
  anyOf('groupId', q.groupId);
  anyOf('groupName', q.groupName);
  anyOf('deviceType.id', q.deviceTypeId);
  anyOf('tags', q.tag);
  if (q.orgId) clauses.push({ orgId: q.orgId });
  if (q.isOnline !== undefined && q.isOnline !== null) {
    clauses.push(whereToFilter({ isOnline: { eq: q.isOnline } }, fields));
  }
  const where = whereToFilter(q.where, fields);
  if (Object.keys(where).length) clauses.push(where);
  const filter: Filter = clauses.length === 0 ? {} : clauses.length === 1 ? clauses[0]! : { $and: clauses };
  const limit = resolveLimit(q.limit);
  const skip = resolveLimit(q.offset, { default: 0, max: 10_000_000 }, 'offset');
  const sort = orderToSort(q.order, fields, { name: 1, id: 1 });
  return deps.repo.findDevices(principal.accountId, filter, { sort, limit, ...(skip ? { skip } : {}) });
}
