/**
 * The analytics root fields as one table (issue 36): every query is "the caller's arguments,
 * validated into a query on the caller's account, then one SQL read", so each feature lists its
 * reads by field name and readResolvers turns the table into resolvers. The field's @policy is run
 * before by createSubgraph (kit guardRootFields); `where` / `order` filter and sort before the limit.
 */
import type { AnalyticsStore, Principal, SubgraphContext } from '@pylon/kit';
import type { AnalyticsQuery } from '../domain/analytics-query.js';
import type { ListArgs } from '../domain/list-filter.js';
import type { ReportDirectory } from '../ports/report-directory.js';
import { ownedDevices, type OwnedDevices } from './loaders.js';
import type { QueryResolvers } from './resolvers.generated.js';

export type { OwnedDevices };

export interface SeriesReadOptions {
  /** Without it, a device of the filter shows only when it has data (none can be confirmed). */
  owned?: OwnedDevices;
  /** The clock (default: the current time). */
  now?: Date;
  /** Off-hours of the caller's devices by their power schedules (ReportDirectory.powerOff). */
  powerOff?: (from: number, to: number) => Promise<Map<string, [number, number][]>>;
}

type Fields = Required<QueryResolvers>;
type Fn<F extends keyof Fields> = Extract<Fields[F], (...args: never[]) => unknown>;

/** A root field's read: its arguments and answer typed from the SDL (resolvers.generated.ts). */
export type Read<F extends keyof Fields> = (store: AnalyticsStore, principal: Principal, args: Parameters<Fn<F>>[1], o: SeriesReadOptions) => ReturnType<Fn<F>>;
export type ReadTable = { [F in keyof Fields]?: Read<F> };

/** Query resolvers from tables of reads; `directory` (absent in a subgraph built for tests alone) says which filtered devices are the caller's. */
export function readResolvers(store: AnalyticsStore, directory: ReportDirectory | undefined, ...tables: ReadTable[]): QueryResolvers {
  const resolvers: Record<string, unknown> = {};
  for (const table of tables) {
    for (const [field, read] of Object.entries(table) as [string, (s: AnalyticsStore, p: Principal, a: unknown, o: SeriesReadOptions) => unknown][]) {
      if (field in resolvers) throw new Error(`analytics: Query.${field} is read by two features`);
      resolvers[field] = (_: unknown, args: unknown, ctx: SubgraphContext) =>
        read(
          store,
          ctx.principal,
          args,
          directory
            ? {
                owned: ownedDevices(directory, ctx),
                ...(directory.powerOff ? { powerOff: (from: number, to: number) => directory.powerOff!(ctx.principal, from, to) } : {}),
              }
            : {},
        );
    }
  }
  return resolvers as QueryResolvers;
}

/** Arguments of a query with where / order. */
export const listOf = (a: ListArgs): ListArgs => ({ where: a.where, order: a.order });

/**
 * The ids of the device filter that are the caller's devices: each gets its series, zeros without
 * data. Started before the series' SQL and awaited after it (the check decides only which empty
 * series to add; the SQL is scoped to the account either way); a failure then is the answer's, and
 * is not reported as unhandled while the SQL runs.
 */
export function listedDevices(q: AnalyticsQuery, owned: OwnedDevices | undefined): Promise<string[]> {
  if (!owned || q.deviceIds.length === 0) return Promise.resolve([]);
  const listed = owned(q.deviceIds).then((mine) => q.deviceIds.filter((id) => mine.has(id)));
  listed.catch(() => undefined);
  return listed;
}
