import type { Collection, CollectionSpec, DocumentStore, Filter, FindOptions, Stored } from '@pylon/kit';
import {
  MEDIA, MEDIA_GROUPS, PLAYLISTS, PLAYLIST_GROUPS, TEMPLATES, TEMPLATE_GROUPS,
} from './domain/collections.js';
import type { ContentGroupRecord, Grouped } from './domain/group.js';
import type { MediaRecord } from './domain/media.js';
import type { PlaylistRecord } from './domain/playlist.js';
import type { TemplateRecord } from './domain/template.js';

export type Media = Stored<MediaRecord>;
export type Playlist = Stored<PlaylistRecord>;
export type Template = Stored<TemplateRecord>;
export type ContentGroup = Stored<ContentGroupRecord>;

/** The items of one content area (media, playlists or templates) and their groups, over the documents port. */
export class GroupedItems<T extends Grouped> {
  readonly items: Collection<T>;
  readonly groups: Collection<ContentGroupRecord>;

  constructor(store: DocumentStore, items: CollectionSpec, groups: CollectionSpec) {
    this.items = store.collection<T>(items);
    this.groups = store.collection<ContentGroupRecord>(groups);
  }

  find(tenant: string, filter: Filter, options: FindOptions): Promise<Stored<T>[]> {
    return this.items.find(tenant, filter, options);
  }

  /** The tenant's items among `ids`; unknown and foreign ids are simply absent. */
  async findByIds(tenant: string, ids: readonly string[]): Promise<Map<string, Stored<T>>> {
    const found = await this.items.find(tenant, { id: { $in: [...ids] } }, {});
    return new Map(found.map((d) => [d.id, d]));
  }

  listGroups(tenant: string): Promise<ContentGroup[]> {
    return this.groups.find(tenant, {}, { sort: { name: 1, id: 1 } });
  }

  /** The groupId of every grouped item, for group counts. */
  async memberGroupIds(tenant: string): Promise<string[]> {
    const grouped = await this.items.find(tenant, { groupId: { $ne: null } }, {});
    return grouped.flatMap((d) => (d.groupId ? [d.groupId] : []));
  }
}

/** Media, playlists and templates of one account with their groups. */
export class ContentRepository {
  readonly media: GroupedItems<MediaRecord>;
  readonly playlists: GroupedItems<PlaylistRecord>;
  readonly templates: GroupedItems<TemplateRecord>;

  constructor(store: DocumentStore) {
    this.media = new GroupedItems(store, MEDIA, MEDIA_GROUPS);
    this.playlists = new GroupedItems(store, PLAYLISTS, PLAYLIST_GROUPS);
    this.templates = new GroupedItems(store, TEMPLATES, TEMPLATE_GROUPS);
  }
}
