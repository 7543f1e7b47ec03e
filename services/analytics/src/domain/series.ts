/**
 * Time series with every period present: the rows the store returned, keyed by group and period,
 * laid over the full list of buckets, an empty period as the caller's zero record. Pure.
 */
import type { Bucket } from './buckets.js';

/** The bucket holding instant `ms` (binary search; buckets are contiguous and ordered). */
export function bucketIndexOf(buckets: readonly Bucket[], ms: number): number {
  let lo = 0,
    hi = buckets.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = buckets[mid]!;
    if (ms < b.start) hi = mid - 1;
    else if (ms >= b.end) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/**
 * One record per group and bucket, groups in the order given (each group's periods in time order).
 * `rows` carry their period start as `p` (epoch seconds, as the queries' period expressions
 * return it) and their group (`groupOf`); `make` builds a record from the row of that group and
 * period, or from nothing (an empty period).
 */
export function fillSeries<Row extends { p: number | string }, Out>(
  buckets: readonly Bucket[],
  groups: readonly string[],
  rows: readonly Row[],
  groupOf: (row: Row) => string,
  make: (group: string, bucket: Bucket, row: Row | undefined) => Out,
  /** Stop after this many records (the query's limit). */
  limit = Infinity,
): Out[] {
  const found = new Map<string, Row>();
  for (const r of rows) {
    const i = bucketIndexOf(buckets, Number(r.p) * 1000);
    if (i >= 0) found.set(`${groupOf(r)}\u0000${i}`, r);
  }
  const out: Out[] = [];
  for (const g of groups) {
    for (let i = 0; i < buckets.length; i++) {
      if (out.length >= limit) return out;
      out.push(make(g, buckets[i]!, found.get(`${g}\u0000${i}`)));
    }
  }
  return out;
}

/** fillSeries with one series per device: those of the rows and the `listed` ones (see groupsOf), in id order. */
export function deviceSeries<Row extends { p: number | string; device_id: string }, Out>(
  buckets: readonly Bucket[],
  rows: readonly Row[],
  listed: readonly string[] | undefined,
  make: (deviceId: string, bucket: Bucket, row: Row | undefined) => Out,
  limit = Infinity,
): Out[] {
  const deviceOf = (r: Row) => r.device_id;
  return fillSeries(buckets, groupsOf(rows, deviceOf, listed), rows, deviceOf, make, limit);
}

/**
 * The distinct groups of the rows and the `listed` ones, sorted: a listed group (a device the
 * caller named in a filter and owns) without rows is a series of zeros.
 */
export const groupsOf = <Row>(rows: readonly Row[], group: (r: Row) => string, listed: readonly string[] = []): string[] =>
  [...new Set([...rows.map(group), ...listed])].sort();
