/**
 * The directory ports over the other subgraphs' GraphQL (distributed mode), each request signed as
 * the caller so the other subgraph answers from the caller's account only. After an edit the
 * account's screens compute their manifests together: the reads each makes (the schedules' content
 * still existing, the content and media it plays, the account's time zone) are shared between
 * identical calls of one account in flight at once (sharedSubgraphQuery), and the screens' device
 * records are looked up together (sharedSubgraphLookup).
 */
import {
  devicePrincipal,
  effectiveWindow,
  mapTemplateLayout,
  querySubgraphAs,
  sharedSubgraphLookup,
  sharedSubgraphQuery,
  type SubgraphTarget,
  type TemplateLayout,
} from '@pylon/kit';
import type { AccountDirectory } from '../ports/account-directory.js';
import type { FleetDevice } from '../domain/override.js';
import type { ContentDirectory, ManifestMedia, ManifestPlaylist, ManifestTemplate } from '../ports/content-directory.js';
import type { DeviceDirectory, DeviceFacts } from '../ports/device-directory.js';

type Target = SubgraphTarget;
type ManifestSource = ManifestPlaylist['sources'][number];
const ask = querySubgraphAs;

export function createHttpDeviceDirectory(t: Target): DeviceDirectory {
  const lookup = sharedSubgraphLookup<DeviceFacts>(DEVICE_LOOKUP_IDS);
  return {
    async devices(caller, ids) {
      if (!ids.length) return new Map();
      return lookup<{ device: DeviceFacts[] | null }>(t, caller, ids, {
        query: 'query($id: [String!], $limit: Int) { device(id: $id, limit: $limit) { id timezone } }',
        variables: (all) => ({ id: all, limit: all.length }),
        byId: (data) => new Map((data.device ?? []).map((d) => [d.id, { id: d.id, timezone: d.timezone ?? null }])),
        what: 'the devices',
      });
    },
    async fleet(caller) {
      const devices: FleetDevice[] = [];
      // Pages of the largest list limit, by id, until a short page.
      for (let offset = 0; ; offset += FLEET_PAGE) {
        const data = await ask<{ device: RemoteFleetDevice[] | null }>(t, caller, FLEET_QUERY, { limit: FLEET_PAGE, offset }, 'the devices');
        const page = data.device ?? [];
        for (const d of page) {
          devices.push({
            id: d.id,
            tags: d.tags ?? [],
            groupId: d.groupId ?? null,
            latitude: d.location?.latitude ?? null,
            longitude: d.location?.longitude ?? null,
          });
        }
        if (page.length < FLEET_PAGE) break;
      }
      const data = await ask<{ deviceGroups: { id: string; parentId: string | null }[] | null }>(
        t,
        caller,
        '{ deviceGroups { id parentId } }',
        {},
        'the device groups',
      );
      return { devices, groups: new Map((data.deviceGroups ?? []).map((g) => [g.id, g.parentId ?? null])) };
    },
    async online(caller, ids) {
      if (!ids.length) return new Set();
      const data = await ask<{ device: { id: string; isOnline: boolean }[] | null }>(
        t,
        caller,
        'query($id: [String!], $limit: Int) { device(id: $id, limit: $limit) { id isOnline } }',
        { id: ids, limit: ids.length },
        'the devices',
      );
      return new Set((data.device ?? []).filter((d) => d.isOnline).map((d) => d.id));
    },
    async display(accountId, deviceIds, command) {
      // Signed as the power schedule of the account, with only the policy the mutation needs.
      const by = { ...devicePrincipal(accountId, 'power-schedule'), userId: 'power-schedule', policies: ['Devices_Edit' as const] };
      await ask(t, by, DISPLAY_MUTATION, { input: { deviceIds, commands: [{ command }] } }, 'the devices');
    },
  };
}

/** The most device ids one shared lookup asks for (the screens of one account computing their manifests together). */
const DEVICE_LOOKUP_IDS = 500;

const DISPLAY_MUTATION = 'mutation($input: BulkDeviceCommandsInput!) { sendBulkDeviceCommands(input: $input) { success error } }';

const FLEET_PAGE = 1000;
const FLEET_QUERY =
  'query($limit: Int, $offset: Int) { device(limit: $limit, offset: $offset, order: [{ id: ASC }]) { id tags groupId location { latitude longitude } } }';
interface RemoteFleetDevice {
  id: string;
  tags: string[] | null;
  groupId: string | null;
  location: { latitude: number | null; longitude: number | null } | null;
}

export function createHttpAccountDirectory(t: Target): AccountDirectory {
  const shared = sharedSubgraphQuery();
  return {
    async timeZone(caller) {
      const data = await shared<{ account: { timezone: string } | null }>(t, caller, '{ account { timezone } }', {}, 'the account');
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
  const shared = sharedSubgraphQuery();
  return {
    async existing(caller, kind, ids) {
      if (!ids.length) return new Set();
      const query = `query($ids: [String], $limit: Int) { ${kind}(where: { id: { in: $ids } }, limit: $limit) { id } }`;
      const data = await shared<Record<string, { id: string }[] | null>>(t, caller, query, { ids, limit: ids.length }, `the ${kind}s`);
      return new Set((data[kind] ?? []).map((r) => r.id));
    },
    async playerContent(caller, refs) {
      const playlists = new Map<string, ManifestPlaylist>();
      const templates = new Map<string, ManifestTemplate>();
      if (!refs.playlistIds.length && !refs.templateIds.length) return { playlists, templates };
      const data = await shared<{ playlist: RemotePlaylist[] | null; template: RemoteTemplate[] | null }>(
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
    async playerMedia(caller, ids) {
      if (!ids.length) return new Map();
      const data = await shared<{ media: RemoteMedia[] | null }>(
        t,
        caller,
        'query($ids: [String], $limit: Int) { media(where: { id: { in: $ids } }, limit: $limit) { id name mimeType fileUrl fileSize sha512 } }',
        { ids, limit: ids.length },
        'the media',
      );
      return new Map((data.media ?? []).filter((m) => ids.includes(m.id)).map((m) => [m.id, mediaOf(m)] as const));
    },
  };
}

interface RemoteMedia {
  id: string;
  name: string | null;
  mimeType: string | null;
  fileUrl: string | null;
  fileSize: number | null;
  sha512: string | null;
}
/** A playlist as content's GraphQL answers it: a player's source with every field present, its file in GraphQL's form. */
interface RemotePlaylist {
  id: string;
  name: string;
  sources: (Required<Omit<ManifestSource, 'media'>> & { media: (RemoteMedia & { validFrom: string | null; validUntil: string | null }) | null })[];
}

const mediaOf = (m: RemoteMedia): ManifestMedia => ({
  id: m.id,
  name: m.name ?? '',
  mimeType: m.mimeType,
  url: m.fileUrl,
  size: m.fileSize,
  sha512: m.sha512,
  duration: null,
});
type RemoteTemplate = TemplateLayout<RemotePlaylist>;

const PLAYLIST_FIELDS =
  'id name sources { id name type interval url validFrom validUntil media { id name mimeType fileUrl fileSize sha512 validFrom validUntil } }';
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
    media: s.media ? mediaOf(s.media) : null,
    url: s.url ?? null,
    // The same intersection content's in-process directory makes (the source's window and its file's).
    ...effectiveWindow(s, s.media),
  })),
});
