/**
 * The content repositories, sealed: use cases call intent-named methods (`rename group`, `move
 * members up`, `replace sources at version n`), never the collections. Every method takes the
 * tenant, so nothing here reads or writes across accounts.
 */
import {
  findOrNotFound,
  GroupTreeRepository,
  notFound,
  type Collection,
  type CollectionSpec,
  type DocumentStore,
  type Filter,
  type FindOptions,
  type Stored,
} from '@pylon/kit';
import { MEDIA, MEDIA_GROUPS, PLAYLISTS, PLAYLIST_GROUPS, TEMPLATES, TEMPLATE_GROUPS } from '../domain/collections.js';
import type { ContentGroupRecord, Grouped } from '../domain/group.js';
import type { MediaRecord } from '../domain/media.js';
import type { PlaylistRecord, PlaylistSourceRecord } from '../domain/playlist.js';
import type { TemplateModuleRecord, TemplateRecord } from '../domain/template.js';

export type Media = Stored<MediaRecord>;
export type Playlist = Stored<PlaylistRecord>;
export type Template = Stored<TemplateRecord>;
export type ContentGroup = Stored<ContentGroupRecord>;

/** The items of one content area (media, playlists or templates) and their groups, over the documents port. */
export class GroupedItems<T extends Grouped> {
  /** Raw collections: for this file and test seeding only; use cases go through the methods. */
  readonly items: Collection<T>;
  readonly groups: Collection<ContentGroupRecord>;
  /** The groups as a tree (kit rules): listing, create, move, delete moving members up. */
  readonly groupTree: GroupTreeRepository<T>;

  constructor(
    store: DocumentStore,
    items: CollectionSpec,
    groups: CollectionSpec,
    readonly noun: string,
  ) {
    this.items = store.collection<T>(items);
    this.groups = store.collection<ContentGroupRecord>(groups);
    this.groupTree = new GroupTreeRepository(this.groups, this.items, noun);
  }

  find(tenant: string, filter: Filter, options: FindOptions): Promise<Stored<T>[]> {
    return this.items.find(tenant, filter, options);
  }

  /** How many of the tenant's items match `filter` (counted by the store). */
  count(tenant: string, filter: Filter): Promise<number> {
    return this.items.count(tenant, filter);
  }

  /** The tenant's items among `ids`; unknown and foreign ids are simply absent. */
  async findByIds(tenant: string, ids: readonly string[]): Promise<Map<string, Stored<T>>> {
    const found = await this.items.find(tenant, { id: { $in: [...ids] } }, {});
    return new Map(found.map((d) => [d.id, d]));
  }

  /** One of the tenant's items, or NOT_FOUND (a foreign id reads exactly like an unknown one). */
  get(tenant: string, id: string): Promise<Stored<T>> {
    return findOrNotFound(this.items, tenant, id, this.noun);
  }

  add(tenant: string, record: T): Promise<Stored<T>> {
    return this.items.insert(tenant, record);
  }

  /** Sets fields; with expectedVersion, VERSION_CONFLICT when it changed since it was read. */
  async change(tenant: string, id: string, fields: Partial<T>, expectedVersion?: number): Promise<Stored<T>> {
    const updated = await this.items.update(tenant, id, { $set: fields as Record<string, unknown> }, expectedVersion === undefined ? {} : { expectedVersion });
    if (!updated) throw notFound(this.noun, id.slice(0, 100));
    return updated;
  }

  async remove(tenant: string, id: string): Promise<void> {
    if (!(await this.items.delete(tenant, id))) throw notFound(this.noun, id.slice(0, 100));
  }
}

export class PlaylistItems extends GroupedItems<PlaylistRecord> {
  /** Stores a new source list, only if the playlist is still at `version` (VERSION_CONFLICT otherwise). */
  replaceSources(tenant: string, id: string, sources: PlaylistSourceRecord[], version: number): Promise<Playlist> {
    return this.change(tenant, id, { sources }, version);
  }

  /** The tenant's playlists that play this media file. */
  usingMedia(tenant: string, mediaId: string): Promise<Playlist[]> {
    return this.items.find(tenant, { 'sources.mediaId': mediaId }, { sort: { name: 1 } });
  }
}

export class TemplateItems extends GroupedItems<TemplateRecord> {
  /** The tenant's templates with a module playing this playlist. */
  usingPlaylist(tenant: string, playlistId: string): Promise<Template[]> {
    return this.items.find(tenant, { 'modules.playlistId': playlistId }, { sort: { name: 1 } });
  }

  replaceModules(tenant: string, id: string, modules: TemplateModuleRecord[], version: number): Promise<Template> {
    return this.change(tenant, id, { modules }, version);
  }
}

/** Media, playlists and templates of one account with their groups. */
export class ContentRepository {
  readonly media: GroupedItems<MediaRecord>;
  readonly playlists: PlaylistItems;
  readonly templates: TemplateItems;

  constructor(store: DocumentStore) {
    this.media = new GroupedItems(store, MEDIA, MEDIA_GROUPS, 'media');
    this.playlists = new PlaylistItems(store, PLAYLISTS, PLAYLIST_GROUPS, 'playlist');
    this.templates = new TemplateItems(store, TEMPLATES, TEMPLATE_GROUPS, 'template');
  }
}
