import DataLoader from 'dataloader';
import { once, type Stored, type SubgraphContext } from '@pylon/kit';
import type { ContentRepository, GroupedItems } from './content.repository.js';
import type { Grouped } from '../domain/group.js';

/** Per-request loader of one area's items by id, scoped to the caller's account; absent ids load as null. */
function byIdLoader<T extends Grouped>(ctx: SubgraphContext, key: string, area: GroupedItems<T>) {
  return once(
    ctx,
    key,
    () =>
      new DataLoader<string, Stored<T> | null>(async (ids) => {
        const found = await area.findByIds(ctx.principal.accountId, ids);
        return ids.map((id) => found.get(id) ?? null);
      }),
  );
}

export const mediaLoader = (repo: ContentRepository, ctx: SubgraphContext) => byIdLoader(ctx, 'content.media.byId', repo.media);
export const playlistLoader = (repo: ContentRepository, ctx: SubgraphContext) => byIdLoader(ctx, 'content.playlists.byId', repo.playlists);
export const templateLoader = (repo: ContentRepository, ctx: SubgraphContext) => byIdLoader(ctx, 'content.templates.byId', repo.templates);
