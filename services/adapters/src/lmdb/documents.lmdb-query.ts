/**
 * Reads of one collection in the embedded store, planned: by id when the filter pins ids, along a
 * secondary index when the filter pins a leading run of its fields (and, for an ordered walk, the
 * sort is the rest; see documents.indexes.ts), else a scan of the tenant's key range in id order.
 * Filters run through mingo.
 */
import { Context } from 'mingo/core';
import * as queryOperators from 'mingo/operators/query';
import { Query } from 'mingo/query';
import type { Filter, SecondaryIndexSpec, Stored } from '@pylon/kit/ports/documents';
import { afterFilter, andFilters, numericBoundsOf, pinnedIds, planIndex, type Scalar } from '../documents/documents.indexes.js';
import { MAX, type Key, type LmdbEnv } from './documents.lmdb-env.js';
import { walkRange, type SecondaryIndexes } from './documents.lmdb-secondary.js';
import { sortDocs } from './documents.mongo-emulation.js';
import { isValidKeyString, type normalizeFindOptions, type Doc } from '../documents/documents.shared.js';

/**
 * What the embedded store runs filters with: the query operators only. mingo's main entry also
 * loads every expression, pipeline, accumulator and window operator (~70 ms of every start), which
 * only `$expr` would need, and no filter has it (test/kit/filters.test.ts runs with these).
 */
export const QUERY_OPTIONS = { scriptEnabled: false, context: Context.init({ query: queryOperators }) } as const;
const queryOf = (filter: Filter | undefined) => (filter && Object.keys(filter).length > 0 ? new Query(filter as never, QUERY_OPTIONS) : null);

/** The planned reads of collection `name` (find, count, and the candidates deleteMany removes). */
export function collectionQueries(env: LmdbEnv, name: string, secondary: SecondaryIndexSpec[], sx: SecondaryIndexes) {
  const { docs, sidx } = env;
  const docKey = (tenant: string, id: string): Key => [name, tenant, id];
  const tenantRange = (tenant: string) => ({ start: [name, tenant] as Key, end: [name, tenant, MAX] as Key });

  function scan(tenant: string, filter: Filter | undefined, visit: (doc: Doc) => boolean | void, reverse = false): void {
    const q = queryOf(filter);
    const r = tenantRange(tenant);
    const range = reverse ? { start: r.end, end: r.start, reverse: true } : r;
    for (const { value } of docs.getRange(range)) {
      if (q && !q.test(value)) continue;
      if (visit(value) === false) return;
    }
  }

  /** Documents matching `filter`, through an index with an equality prefix when there is one. */
  function* candidates(tenant: string, filter: Filter | undefined): Generator<Doc> {
    const ids = pinnedIds(filter);
    // A filter that is only the id list needs no per-document test: a read by key matches it (a
    // 1,000-id $in tested on each of 1,000 documents cost ~300 ms of a bulk job's chunk).
    const q = ids && Object.keys(filter!).length === 1 && Object.hasOwn(filter!, 'id') ? null : queryOf(filter);
    if (ids) {
      // By key: a by-id read costs the ids asked for, not the tenant's size.
      for (const id of ids) {
        const d = isValidKeyString(id) ? (docs.get(docKey(tenant, id)) as Doc | undefined) : undefined;
        if (d && (!q || q.test(d))) yield d;
      }
      return;
    }
    const plan = planIndex(secondary, filter, []);
    if (plan && plan.equal.length > 0) {
      for (const d of sx.walk(tenant, { ...plan, ordered: false, dir: 1 }, [])) if (!q || q.test(d)) yield d;
      return;
    }
    const out: Doc[] = [];
    scan(tenant, filter, (d) => {
      out.push(d);
    });
    yield* out;
  }

  /** `o`: the normalized find options; `after`: the keyset position (FindOptions.after). */
  function find(tenant: string, filter: Filter | undefined, o: ReturnType<typeof normalizeFindOptions>, after: unknown[] | undefined): Stored<object>[] {
    if (o.limit === 0) return [];
    const end = o.limit === undefined ? Infinity : o.skip + o.limit;
    if (pinnedIds(filter)) {
      const all = [...candidates(tenant, after ? andFilters(filter, afterFilter(o.sort, after)) : filter)];
      sortDocs(all, o.sort);
      return all.slice(o.skip, end) as Stored<object>[];
    }
    const plan = planIndex(secondary, filter, o.sort);
    if (plan) {
      const afterOnly = after ? afterFilter(o.sort, after) : undefined;
      // An ordered walk over one free field, from an `after` the index holds uncut, starts
      // exactly at that position: the entries past it are the documents after it, except for
      // the types the after filter leaves out (comparisons are type-bracketed), which `ranks`
      // skips. So that filter (an $or, tested on every document walked) is not needed; a
      // numeric range on the field makes the walk start at the range and stop past it.
      const single = plan.ordered && plan.index.fields.length - plan.equal.length === 1;
      const exactStart = !!after && single && !sx.entryPrefix(plan.index, tenant, [...plan.equal, after[0] as Scalar]).cut;
      const range =
        single && (!after || exactStart)
          ? walkRange(plan.dir, after?.[0] as Scalar | undefined, numericBoundsOf(filter, plan.index.fields[plan.equal.length] as string))
          : undefined;
      const full = andFilters(filter, exactStart ? undefined : afterOnly);
      const q = full ? new Query(full as never, QUERY_OPTIONS) : null;
      if (plan.ordered) {
        const out: Doc[] = [];
        let seen = 0;
        const afterId = exactStart ? (after?.[after.length - 1] as string) : undefined;
        let first = true;
        for (const d of sx.walk(tenant, plan, o.sort, after, range)) {
          if (first) {
            first = false;
            if (afterId !== undefined && d.id === afterId) continue;
          }
          if (q && !q.test(d)) continue;
          if (seen++ >= o.skip) out.push(d);
          if (seen >= end) break;
        }
        return out as Stored<object>[];
      }
      const all: Doc[] = [];
      for (const d of sx.walk(tenant, { ...plan, dir: 1 }, o.sort)) if (!q || q.test(d)) all.push(d);
      sortDocs(all, o.sort);
      return all.slice(o.skip, end) as Stored<object>[];
    }
    if (after) filter = andFilters(filter, afterFilter(o.sort, after));
    const first = o.sort[0] as [string, 1 | -1];
    if (o.sort.length === 1 && first[0] === 'id') {
      // Key order is id order: stream and stop early.
      const out: Doc[] = [];
      let seen = 0;
      scan(
        tenant,
        filter,
        (d) => {
          if (seen++ >= o.skip) out.push(d);
          return seen < end;
        },
        first[1] === -1,
      );
      return out as Stored<object>[];
    }
    const all: Doc[] = [];
    scan(tenant, filter, (d) => {
      all.push(d);
    });
    sortDocs(all, o.sort);
    return all.slice(o.skip, end) as Stored<object>[];
  }

  function count(tenant: string, filter: Filter | undefined): number {
    if (!filter || Object.keys(filter).length === 0) return docs.getKeysCount(tenantRange(tenant));
    const plan = planIndex(secondary, filter, []);
    if (plan && plan.equal.length === Object.keys(filter).length) {
      // The filter is exactly the index's equality prefix: count its keys, read no document.
      const { key } = sx.entryPrefix(plan.index, tenant, plan.equal);
      return sidx.getKeysCount({ start: key, end: [...key, MAX] });
    }
    let n = 0;
    for (const _ of candidates(tenant, filter)) n++;
    return n;
  }

  return { find, count, candidates };
}
