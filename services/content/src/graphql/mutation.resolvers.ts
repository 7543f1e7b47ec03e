/** Mutation: every expected failure becomes { success: false, error, errorCode, errorField } (kit mutationPayload). */
import { createGroup, deleteGroup, mutationPayload, updateGroup } from '@pylon/kit';
import type { ContentRuntime } from '../runtime.js';
import { importMedia } from '../use-cases/add-media.js';
import { deleteMedia, patchMedia, updateMedia } from '../use-cases/manage-media.js';
import { createPlaylist, deletePlaylist, patchPlaylist, updatePlaylist } from '../use-cases/manage-playlists.js';
import { createTemplate, deleteTemplate, updateTemplate } from '../use-cases/manage-templates.js';
import { addPlaylistSource, addPlaylistWebPage, removePlaylistSource, reorderPlaylistSources, updatePlaylistSource } from '../use-cases/playlist-sources.js';
import type { MutationResolvers } from './resolvers.generated.js';

/** Each mutation guards through kit's operation-rules (the table `permissions` reports). */
export function mutationResolvers(rt: ContentRuntime): MutationResolvers {
  const { media, playlists, templates } = rt.repo;
  return {
    createMediaFromUrl: (_, a, ctx) => {
      return mutationPayload(async () => ({ media: await importMedia(rt, ctx.principal, a.input) }));
    },
    updateMedia: (_, a, ctx) => {
      return mutationPayload(async () => ({ media: await updateMedia(rt, ctx.principal, a.id, a.input) }));
    },
    patchMedia: (_, a, ctx) => {
      return mutationPayload(async () => ({ media: await patchMedia(rt, ctx.principal, a.id, a.operations) }));
    },
    deleteMedia: (_, a, ctx) => {
      return mutationPayload(() => deleteMedia(rt, ctx.principal, a.id));
    },
    createMediaGroup: (_, a, ctx) => {
      return mutationPayload(async () => ({ group: await createGroup(media.groupTree, ctx.principal, a.input) }));
    },
    updateMediaGroup: (_, a, ctx) => {
      return mutationPayload(async () => ({ group: await updateGroup(media.groupTree, ctx.principal, a.id, a.input) }));
    },
    deleteMediaGroup: (_, a, ctx) => {
      return mutationPayload(() => deleteGroup(media.groupTree, ctx.principal, a.id));
    },
    createPlaylist: (_, a, ctx) => {
      return mutationPayload(async () => ({ playlist: await createPlaylist(rt, ctx.principal, a.input) }));
    },
    updatePlaylist: (_, a, ctx) => {
      return mutationPayload(async () => ({ playlist: await updatePlaylist(rt, ctx.principal, a.id, a.input) }));
    },
    patchPlaylist: (_, a, ctx) => {
      return mutationPayload(async () => ({ playlist: await patchPlaylist(rt, ctx.principal, a.id, a.operations) }));
    },
    deletePlaylist: (_, a, ctx) => {
      return mutationPayload(() => deletePlaylist(rt, ctx.principal, a.id));
    },
    addPlaylistSource: (_, a, ctx) => {
      return mutationPayload(async () => ({ playlist: await addPlaylistSource(rt, ctx.principal, a.input) }));
    },
    addPlaylistWebPage: (_, a, ctx) => {
      return mutationPayload(async () => ({ playlist: await addPlaylistWebPage(rt, ctx.principal, a.input) }));
    },
    updatePlaylistSource: (_, a, ctx) => {
      return mutationPayload(async () => ({ playlist: await updatePlaylistSource(rt, ctx.principal, a.input) }));
    },
    removePlaylistSource: (_, a, ctx) => {
      return mutationPayload(async () => ({ playlist: await removePlaylistSource(rt, ctx.principal, a) }));
    },
    reorderPlaylistSources: (_, a, ctx) => {
      return mutationPayload(async () => ({ playlist: await reorderPlaylistSources(rt, ctx.principal, a.input) }));
    },
    createPlaylistGroup: (_, a, ctx) => {
      return mutationPayload(async () => ({ group: await createGroup(playlists.groupTree, ctx.principal, a.input) }));
    },
    updatePlaylistGroup: (_, a, ctx) => {
      return mutationPayload(async () => ({ group: await updateGroup(playlists.groupTree, ctx.principal, a.id, a.input) }));
    },
    deletePlaylistGroup: (_, a, ctx) => {
      return mutationPayload(() => deleteGroup(playlists.groupTree, ctx.principal, a.id));
    },
    createTemplate: (_, a, ctx) => {
      return mutationPayload(async () => ({ template: await createTemplate(rt, ctx.principal, a.input) }));
    },
    updateTemplate: (_, a, ctx) => {
      return mutationPayload(async () => ({ template: await updateTemplate(rt, ctx.principal, a.id, a.input) }));
    },
    deleteTemplate: (_, a, ctx) => {
      return mutationPayload(() => deleteTemplate(rt, ctx.principal, a.id));
    },
    createTemplateGroup: (_, a, ctx) => {
      return mutationPayload(async () => ({ group: await createGroup(templates.groupTree, ctx.principal, a.input) }));
    },
    updateTemplateGroup: (_, a, ctx) => {
      return mutationPayload(async () => ({ group: await updateGroup(templates.groupTree, ctx.principal, a.id, a.input) }));
    },
    deleteTemplateGroup: (_, a, ctx) => {
      return mutationPayload(() => deleteGroup(templates.groupTree, ctx.principal, a.id));
    },
  };
}
