/** Small helpers for mappers: reading GraphQL data defensively. */
import { AppError } from '@pylon/kit';

export type GqlRecord = Record<string, unknown>;

export const isRecord = (v: unknown): v is GqlRecord => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The root field as an object; a missing one is a facade/schema defect, not the caller's. */
export function recordAt(data: GqlRecord, field: string): GqlRecord {
  const v = data[field];
  if (!isRecord(v)) throw new AppError('INTERNAL', `the gateway answer has no object at '${field}'`);
  return v;
}

export function recordsAt(data: GqlRecord, field: string): GqlRecord[] {
  const v = data[field];
  if (!Array.isArray(v) || !v.every(isRecord)) throw new AppError('INTERNAL', `the gateway answer has no list at '${field}'`);
  return v;
}

/** A single REST value as the one-element list GraphQL list arguments take. */
export const one = <T>(v: T | undefined): T[] | undefined => (v === undefined ? undefined : [v]);
