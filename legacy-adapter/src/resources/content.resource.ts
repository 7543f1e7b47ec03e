/**
 * /media, /playlists, /templates (read-only, take/page as on current REST) in json, xml and JSONP;
 * playlists also as RSS 2.0 (format=rss): GET /playlists/:id is a feed of its sources in play
 * order, each with an <enclosure url length type> for its media file; GET /playlists is a feed of
 * the playlists, each item linking to its own feed.
 */
import type { RssFeed } from '../render/rss.renderer.js';
import { toLegacyMedia, toLegacyPlaylist, toLegacyTemplate, type LegacyMedia, type LegacyPlaylist, type LegacyTemplate } from './content.record.js';
import { legacyPageWindow } from './paging.js';
import { defineResource, notFoundById, type LegacyData, type LegacyOperationId, type ResourceContext } from './resource.js';

async function listOf<N extends LegacyOperationId, T>(ctx: ResourceContext, operationId: N, items: (data: LegacyData<N>) => T[] | null): Promise<T[]> {
  const data = await ctx.run(operationId, legacyPageWindow(ctx.query));
  return items(data) ?? [];
}

async function oneOf<N extends 'getMedia' | 'getPlaylist' | 'getTemplate', T>(
  ctx: ResourceContext,
  operationId: N,
  items: (data: LegacyData<N>) => T[] | null,
  what: string,
): Promise<T> {
  const data = await ctx.run(operationId, { id: ctx.params.id });
  const [found] = items(data) ?? [];
  if (!found) throw notFoundById(what, ctx.params.id);
  return found;
}

/** File addresses made absolute (they are relative to the REST base unless MEDIA_PUBLIC_BASE_URL is set). */
function withAbsoluteFiles(ctx: ResourceContext, p: LegacyPlaylist): LegacyPlaylist {
  return {
    ...p,
    sources: p.sources.map((s) =>
      s.media && typeof s.media.file_url === 'string' ? { ...s, media: { ...s.media, file_url: ctx.absoluteUrl(s.media.file_url) } } : s,
    ),
  };
}

export const listMedia = defineResource<LegacyMedia[]>({
  method: 'get',
  path: '/media',
  operations: ['listMedia'],
  view: { root: 'media', item: 'medium' },
  handle: async (ctx) => (await listOf(ctx, 'listMedia', (d) => d.media)).map(toLegacyMedia),
});

export const getMedia = defineResource<LegacyMedia>({
  method: 'get',
  path: '/media/:id',
  operations: ['getMedia'],
  view: { root: 'medium' },
  handle: async (ctx) => toLegacyMedia(await oneOf(ctx, 'getMedia', (d) => d.media, 'media')),
});

/** The REST address of each playlist answered, for its feed's channel link (kept beside the data, not in it). */
const feedLinks = new WeakMap<object, string>();

/** One item per source: title the source (or file) name, guid the source id, enclosure the file. */
function playlistFeed(p: LegacyPlaylist): RssFeed {
  return {
    title: String(p.name),
    link: feedLinks.get(p) ?? '',
    description: `Playlist ${String(p.name)}: ${p.sources.length} source(s) in play order`,
    items: p.sources.map((s) => {
      const url = typeof s.media?.file_url === 'string' ? s.media.file_url : null;
      return {
        title: String(s.name ?? s.media?.file_name ?? s.id),
        guid: `${String(p.id)}:${String(s.id)}`,
        description: `${String(s.type)}${s.interval ? `, ${String(s.interval)} s` : ''}`,
        link: url,
        enclosure: url ? { url, type: String(s.media?.mime_type ?? 'application/octet-stream'), length: Number(s.media?.file_size ?? 0) } : null,
      };
    }),
  };
}

export const listPlaylists = defineResource<LegacyPlaylist[]>({
  method: 'get',
  path: '/playlists',
  operations: ['listPlaylists'],
  view: {
    root: 'playlists',
    item: 'playlist',
    rss: (playlists) => ({
      title: 'Playlists',
      link: feedLinks.get(playlists) ?? '',
      description: `${playlists.length} playlist(s); each item's feed is GET /playlists/{id}?format=rss`,
      items: playlists.map((p) => ({
        title: String(p.name),
        guid: String(p.id),
        description: `${String(p.type)}, ${p.sources.length} source(s)`,
        pubDate: typeof p.updated_on === 'string' ? p.updated_on : null,
      })),
    }),
  },
  async handle(ctx) {
    const playlists = (await listOf(ctx, 'listPlaylists', (d) => d.playlist)).map((p) => withAbsoluteFiles(ctx, toLegacyPlaylist(p)));
    feedLinks.set(playlists, ctx.absoluteUrl('/playlists'));
    return playlists;
  },
});

export const getPlaylist = defineResource<LegacyPlaylist>({
  method: 'get',
  path: '/playlists/:id',
  operations: ['getPlaylist'],
  view: { root: 'playlist', rss: playlistFeed },
  async handle(ctx) {
    const p = withAbsoluteFiles(ctx, toLegacyPlaylist(await oneOf(ctx, 'getPlaylist', (d) => d.playlist, 'playlist')));
    feedLinks.set(p, ctx.absoluteUrl(`/playlists/${encodeURIComponent(String(p.id))}`));
    return p;
  },
});

export const listTemplates = defineResource<LegacyTemplate[]>({
  method: 'get',
  path: '/templates',
  operations: ['listTemplates'],
  view: { root: 'templates', item: 'template' },
  handle: async (ctx) => (await listOf(ctx, 'listTemplates', (d) => d.template)).map(toLegacyTemplate),
});

export const getTemplate = defineResource<LegacyTemplate>({
  method: 'get',
  path: '/templates/:id',
  operations: ['getTemplate'],
  view: { root: 'template' },
  handle: async (ctx) => toLegacyTemplate(await oneOf(ctx, 'getTemplate', (d) => d.template, 'template')),
});
