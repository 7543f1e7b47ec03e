/** Small helpers for mappers: reading GraphQL data defensively. */
import { AppError, isJsonObject, payloadAt, type FieldNames, type JsonObject } from '@pylon/kit';

/** An object of a gateway answer read by a mapper that serves many documents (a typed mapper reads DataOf<N>). */
export type GqlRecord = JsonObject;

export const isRecord: (v: unknown) => v is GqlRecord = isJsonObject;

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

/** The request body of a mapper that reads it member by member (rest.yaml's schema checked its shape first); anything but an object is a 400 naming the body. */
export function objectBody(body: unknown): GqlRecord {
  if (!isRecord(body)) throw new AppError('BAD_USER_INPUT', 'the body must be a JSON object', { field: 'body' });
  return body;
}

/** A single REST value as the one-element list GraphQL list arguments take. */
export const one = <T>(v: T | undefined): T[] | undefined => (v === undefined ? undefined : [v]);

/**
 * A mutation payload by its root field, typed by the document's answer: a `success: false` payload
 * (or a missing one) throws the AppError its errorCode names (kit payloadAt).
 */
export function payloadOf<D extends object, R extends keyof D & string>(data: D, root: R, fieldNames?: FieldNames): NonNullable<D[R]> {
  return payloadAt(data as GqlRecord, root, fieldNames) as NonNullable<D[R]>;
}

/** A payload's object field, typed; a missing one is a facade/schema defect. */
export function fieldOf<P extends object, K extends keyof P & string>(payload: P, key: K): NonNullable<P[K]> {
  return recordAt(payload as GqlRecord, key) as NonNullable<P[K]>;
}

/** A list root, typed by the document's answer; a missing list is a facade/schema defect. */
export function listOf<D extends object, R extends keyof D & string>(data: D, root: R): NonNullable<D[R]> {
  return recordsAt(data as GqlRecord, root) as NonNullable<D[R]>;
}
