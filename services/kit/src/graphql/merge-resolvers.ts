/**
 * Resolver modules merged type by type. Spreading `{ ...a.Mutation, ...b.Mutation }` lets a second
 * module silently replace a field the first one defined; merging through here throws at start
 * instead, naming the field and both modules' positions.
 */
import { GraphQLScalarType } from 'graphql';

/** A resolver map: type name -> field resolvers (or a scalar / enum value map). */
export type ResolverMap = { readonly [typeName: string]: unknown };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GraphQLScalarType) && Object.getPrototypeOf(v) === Object.prototype;

/** Merges resolver modules; a type or field defined by two modules is an error, not an override. */
export function mergeResolvers<T extends ResolverMap>(...modules: readonly T[]): T {
  const merged: Record<string, unknown> = {};
  const owner = new Map<string, number>();
  modules.forEach((module, index) => {
    for (const [typeName, value] of Object.entries(module)) {
      if (value === undefined) continue;
      const existing = merged[typeName];
      if (existing === undefined) {
        merged[typeName] = isPlainObject(value) ? { ...value } : value;
        if (isPlainObject(value)) for (const field of Object.keys(value)) owner.set(`${typeName}.${field}`, index);
        else owner.set(typeName, index);
        continue;
      }
      if (!isPlainObject(existing) || !isPlainObject(value)) {
        throw new Error(`resolvers: ${typeName} is defined by modules ${owner.get(typeName) ?? '?'} and ${index}`);
      }
      for (const [field, resolver] of Object.entries(value)) {
        const key = `${typeName}.${field}`;
        if (field in existing) throw new Error(`resolvers: ${key} is defined by modules ${owner.get(key)} and ${index}`);
        existing[field] = resolver;
        owner.set(key, index);
      }
    }
  });
  return merged as T;
}
