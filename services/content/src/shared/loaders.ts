import { byIdLoader, type Stored, type SubgraphContext } from '@pylon/kit';
import type { ContentRepository, GroupedItems } from './content.repository.js';
import type { Grouped } from '../domain/group.js';

/** Per-request loader of one area's items by id, scoped to the caller's account; absent ids load as null. */
const areaLoader = <T extends Grouped>(ctx: SubgraphContext, key: string, area: GroupedItems<T>) =>
  byIdLoader<Stored<T>>(ctx, key, (tenant, ids) => area.findByIds(tenant, ids));

export const mediaLoader = (repo: ContentRepository, ctx: SubgraphContext) => areaLoader(ctx, 'content.media.byId', repo.media);
export const playlistLoader = (repo: ContentRepository, ctx: SubgraphContext) => areaLoader(ctx, 'content.playlists.byId', repo.playlists);
export const templateLoader = (repo: ContentRepository, ctx: SubgraphContext) => areaLoader(ctx, 'content.templates.byId', repo.templates);
