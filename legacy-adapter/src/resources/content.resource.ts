/**
 * /media, /playlists, /templates (read-only, take/page as on current REST) in json, xml and JSONP;
 * playlists also as RSS 2.0 (format=rss): GET /playlists/:id is a feed of its sources in play
 * order, each with an <enclosure url length type> for its media file; GET /playlists is a feed of
 * the playlists, each item linking to its own feed.
 */
import type { RssFeed } from '../render/rss.renderer.js';
import { toLegacyMedia, toLegacyPlaylist, toLegacyTemplate, type LegacyPlaylist } from './content.record.js';
import { legacyPageWindow } from './paging.js';
import { notFoundById, resource, type LegacyData, type LegacyOperationId, type OperationContext, type ResourceContext } from './resource.js';

/** The page of records the request's take and page ask for. */
async function listOf<N extends LegacyOperationId, T>({ query, call }: OperationContext<N>, items: (data: LegacyData<N>) => T[] | null): Promise<T[]> {
  return items(await call(legacyPageWindow(query))) ?? [];
}

/** The record with the path's id (404 naming `what` when the account has none). */
async function oneOf<N extends 'getMedia' | 'getPlaylist' | 'getTemplate', T>(
  { params, call }: OperationContext<N>,
  items: (data: LegacyData<N>) => T[] | null,
  what: string,
): Promise<T> {
  const [found] = items(await call({ id: params.id })) ?? [];
  if (!found) throw notFoundById(what, params.id);
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

export const listMedia = resource('GET /media', 'listMedia', { root: 'media', item: 'medium' }, async (ctx) =>
  (await listOf(ctx, (d) => d.media)).map(toLegacyMedia),
);

export const getMedia = resource('GET /media/:id', 'getMedia', { root: 'medium' }, async (ctx) => toLegacyMedia(await oneOf(ctx, (d) => d.media, 'media')));

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

/** The playlists, a feed of them with format=rss (each item linking to its own feed). */
const playlistsFeed = (playlists: LegacyPlaylist[]): RssFeed => ({
  title: 'Playlists',
  link: feedLinks.get(playlists) ?? '',
  description: `${playlists.length} playlist(s); each item's feed is GET /playlists/{id}?format=rss`,
  items: playlists.map((p) => ({
    title: String(p.name),
    guid: String(p.id),
    description: `${String(p.type)}, ${p.sources.length} source(s)`,
    pubDate: typeof p.updated_on === 'string' ? p.updated_on : null,
  })),
});

export const listPlaylists = resource('GET /playlists', 'listPlaylists', { root: 'playlists', item: 'playlist', rss: playlistsFeed }, async (ctx) => {
  const playlists = (await listOf(ctx, (d) => d.playlist)).map((p) => withAbsoluteFiles(ctx, toLegacyPlaylist(p)));
  feedLinks.set(playlists, ctx.absoluteUrl('/playlists'));
  return playlists;
});

export const getPlaylist = resource('GET /playlists/:id', 'getPlaylist', { root: 'playlist', rss: playlistFeed }, async (ctx) => {
  const p = withAbsoluteFiles(ctx, toLegacyPlaylist(await oneOf(ctx, (d) => d.playlist, 'playlist')));
  feedLinks.set(p, ctx.absoluteUrl(`/playlists/${encodeURIComponent(String(p.id))}`));
  return p;
});

export const listTemplates = resource('GET /templates', 'listTemplates', { root: 'templates', item: 'template' }, async (ctx) =>
  (await listOf(ctx, (d) => d.template)).map(toLegacyTemplate),
);

export const getTemplate = resource('GET /templates/:id', 'getTemplate', { root: 'template' }, async (ctx) =>
  toLegacyTemplate(await oneOf(ctx, (d) => d.template, 'template')),
);
