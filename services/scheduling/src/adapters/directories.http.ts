/**
 * The directory ports over the other subgraphs' GraphQL (distributed mode), each request signed as
 * the caller so the other subgraph answers from the caller's account only.
 */
import { mapTemplateLayout, querySubgraphAs, type SubgraphTarget, type TemplateLayout } from '@pylon/kit';
import type { AccountDirectory } from '../ports/account-directory.js';
import type { ContentDirectory, ManifestPlaylist, ManifestTemplate } from '../ports/content-directory.js';
import type { DeviceDirectory, DeviceFacts } from '../ports/device-directory.js';

type Target = SubgraphTarget;
const ask = querySubgraphAs;

export function createHttpDeviceDirectory(t: Target): DeviceDirectory {
  return {
    async devices(caller, ids) {
      if (!ids.length) return new Map();
      const data = await ask<{ device: DeviceFacts[] | null }>(
        t,
        caller,
        'query($id: [String!], $limit: Int) { device(id: $id, limit: $limit) { id timezone } }',
        { id: ids, limit: ids.length },
        'the devices',
      );
      return new Map((data.device ?? []).map((d) => [d.id, { id: d.id, timezone: d.timezone ?? null }]));
    },
  };
}

export function createHttpAccountDirectory(t: Target): AccountDirectory {
  return {
    async timeZone(caller) {
      const data = await ask<{ account: { timezone: string } | null }>(t, caller, '{ account { timezone } }', {}, 'the account');
      return data.account?.timezone ?? 'UTC';
    },
    async hasOrganization(caller, orgId) {
      const data = await ask<{ organizations: { id: string }[] | null }>(
        t,
        caller,
        'query($id: [String!]) { organizations(id: $id, limit: 1) { id } }',
        { id: [orgId] },
        'the organization',
      );
      return (data.organizations ?? []).some((o) => o.id === orgId);
    },
  };
}

export function createHttpContentDirectory(t: Target): ContentDirectory {
  return {
    async existing(caller, kind, ids) {
      if (!ids.length) return new Set();
      const query = `query($ids: [String], $limit: Int) { ${kind}(where: { id: { in: $ids } }, limit: $limit) { id } }`;
      const data = await ask<Record<string, { id: string }[] | null>>(t, caller, query, { ids, limit: ids.length }, `the ${kind}s`);
      return new Set((data[kind] ?? []).map((r) => r.id));
    },
    async playerContent(caller, refs) {
      const playlists = new Map<string, ManifestPlaylist>();
      const templates = new Map<string, ManifestTemplate>();
      if (!refs.playlistIds.length && !refs.templateIds.length) return { playlists, templates };
      const data = await ask<{ playlist: RemotePlaylist[] | null; template: RemoteTemplate[] | null }>(
        t,
        caller,
        PLAYER_CONTENT_QUERY,
        {
          p: refs.playlistIds,
          pl: Math.max(1, refs.playlistIds.length),
          t: refs.templateIds,
          tl: Math.max(1, refs.templateIds.length),
        },
        'the content',
      );
      for (const p of data.playlist ?? []) if (refs.playlistIds.includes(p.id)) playlists.set(p.id, playlistOf(p));
      for (const x of data.template ?? []) {
        if (!refs.templateIds.includes(x.id)) continue;
        templates.set(x.id, { kind: 'template', ...mapTemplateLayout(x, playlistOf) });
      }
      return { playlists, templates };
    },
  };
}

interface RemotePlaylist {
  id: string;
  name: string;
  sources: {
    id: string;
    name: string | null;
    type: string;
    interval: number | null;
    media: { id: string; name: string | null; mimeType: string | null; fileUrl: string | null; fileSize: number | null; sha512: string | null } | null;
    url: string | null;
  }[];
}
type RemoteTemplate = TemplateLayout<RemotePlaylist>;

const PLAYLIST_FIELDS = 'id name sources { id name type interval url media { id name mimeType fileUrl fileSize sha512 } }';
const PLAYER_CONTENT_QUERY = `query($p: [String], $pl: Int, $t: [String], $tl: Int) {
  playlist(where: { id: { in: $p } }, limit: $pl) { ${PLAYLIST_FIELDS} }
  template(where: { id: { in: $t } }, limit: $tl) { id name width height orientation modules { id name left top width height dataTableId playlist { ${PLAYLIST_FIELDS} } } }
}`;

const playlistOf = (p: RemotePlaylist): ManifestPlaylist => ({
  kind: 'playlist',
  id: p.id,
  name: p.name,
  sources: p.sources.map((s) => ({
    id: s.id,
    name: s.name,
    type: s.type,
    interval: s.interval,
    media: s.media
      ? {
          id: s.media.id,
          name: s.media.name ?? '',
          mimeType: s.media.mimeType,
          url: s.media.fileUrl,
          size: s.media.fileSize,
          sha512: s.media.sha512,
          duration: null,
        }
      : null,
    url: s.url ?? null,
  })),
});
