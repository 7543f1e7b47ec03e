/** Per-request loaders: one batched read for every record a response references. */
import DataLoader from 'dataloader';
import { once, type SubgraphContext } from './context.js';

/**
 * The request's loader of the caller's records by id (memoised in the context under `key`): `find`
 * reads one batch of ids in the caller's account, as a list or a map by id; ids it does not return
 * load as null.
 */
export function byIdLoader<V extends { id: string }>(
  ctx: SubgraphContext,
  key: string,
  find: (accountId: string, ids: readonly string[]) => Promise<readonly V[] | ReadonlyMap<string, V>>,
): DataLoader<string, V | null> {
  return once(
    ctx,
    key,
    () =>
      new DataLoader<string, V | null>(async (ids) => {
        const found = await find(ctx.principal.accountId, ids);
        const byId = found instanceof Map ? found : new Map((found as readonly V[]).map((v) => [v.id, v]));
        return ids.map((id) => byId.get(id) ?? null);
      }),
  );
}
