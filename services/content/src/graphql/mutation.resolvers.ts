/** Mutation: every expected failure becomes { success: false, error, errorCode, errorField } (kit mutationPayload). */
import { createGroup, deleteGroup, guardMutation, mutationPayload, updateGroup } from '@pylon/kit';
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
      guardMutation(ctx.principal, 'createMediaFromUrl');
      return mutationPayload(async () => ({ media: await importMedia(rt, ctx.principal, a.input) }));
    },
    updateMedia: (_, a, ctx) => {
      guardMutation(ctx.principal, 'updateMedia');
      return mutationPayload(async () => ({ media: await updateMedia(rt, ctx.principal, a.id, a.input) }));
    },
    patchMedia: (_, a, ctx) => {
      guardMutation(ctx.principal, 'patchMedia');
      return mutationPayload(async () => ({ media: await patchMedia(rt, ctx.principal, a.id, a.operations) }));
    },
    deleteMedia: (_, a, ctx) => {
      guardMutation(ctx.principal, 'deleteMedia');
      return mutationPayload(() => deleteMedia(rt, ctx.principal, a.id));
    },
    createMediaGroup: (_, a, ctx) => {
      guardMutation(ctx.principal, 'createMediaGroup');
      return mutationPayload(async () => ({ group: await createGroup(media.groupTree, ctx.principal, a.input) }));
    },
    updateMediaGroup: (_, a, ctx) => {
      guardMutation(ctx.principal, 'updateMediaGroup');
      return mutationPayload(async () => ({ group: await updateGroup(media.groupTree, ctx.principal, a.id, a.input) }));
    },
    deleteMediaGroup: (_, a, ctx) => {
      guardMutation(ctx.principal, 'deleteMediaGroup');
      return mutationPayload(() => deleteGroup(media.groupTree, ctx.principal, a.id));
    },
    createPlaylist: (_, a, ctx) => {
      guardMutation(ctx.principal, 'createPlaylist');
      return mutationPayload(async () => ({ playlist: await createPlaylist(rt, ctx.principal, a.input) }));
    },
    updatePlaylist: (_, a, ctx) => {
      guardMutation(ctx.principal, 'updatePlaylist');
      return mutationPayload(async () => ({ playlist: await updatePlaylist(rt, ctx.principal, a.id, a.input) }));
    },
    patchPlaylist: (_, a, ctx) => {
      guardMutation(ctx.principal, 'patchPlaylist');
      return mutationPayload(async () => ({ playlist: await patchPlaylist(rt, ctx.principal, a.id, a.operations) }));
    },
    deletePlaylist: (_, a, ctx) => {
      guardMutation(ctx.principal, 'deletePlaylist');
      return mutationPayload(() => deletePlaylist(rt, ctx.principal, a.id));
    },
    addPlaylistSource: (_, a, ctx) => {
      guardMutation(ctx.principal, 'addPlaylistSource');
      return mutationPayload(async () => ({ playlist: await addPlaylistSource(rt, ctx.principal, a.input) }));
    },
    addPlaylistWebPage: (_, a, ctx) => {
      guardMutation(ctx.principal, 'addPlaylistWebPage');
      return mutationPayload(async () => ({ playlist: await addPlaylistWebPage(rt, ctx.principal, a.input) }));
    },
    updatePlaylistSource: (_, a, ctx) => {
      guardMutation(ctx.principal, 'updatePlaylistSource');
      return mutationPayload(async () => ({ playlist: await updatePlaylistSource(rt, ctx.principal, a.input) }));
    },
    removePlaylistSource: (_, a, ctx) => {
      guardMutation(ctx.principal, 'removePlaylistSource');
      return mutationPayload(async () => ({ playlist: await removePlaylistSource(rt, ctx.principal, a) }));
    },
    reorderPlaylistSources: (_, a, ctx) => {
      guardMutation(ctx.principal, 'reorderPlaylistSources');
      return mutationPayload(async () => ({ playlist: await reorderPlaylistSources(rt, ctx.principal, a.input) }));
    },
    createPlaylistGroup: (_, a, ctx) => {
      guardMutation(ctx.principal, 'createPlaylistGroup');
      return mutationPayload(async () => ({ group: await createGroup(playlists.groupTree, ctx.principal, a.input) }));
    },
    updatePlaylistGroup: (_, a, ctx) => {
      guardMutation(ctx.principal, 'updatePlaylistGroup');
      return mutationPayload(async () => ({ group: await updateGroup(playlists.groupTree, ctx.principal, a.id, a.input) }));
    },
    deletePlaylistGroup: (_, a, ctx) => {
      guardMutation(ctx.principal, 'deletePlaylistGroup');
      return mutationPayload(() => deleteGroup(playlists.groupTree, ctx.principal, a.id));
    },
    createTemplate: (_, a, ctx) => {
      guardMutation(ctx.principal, 'createTemplate');
      return mutationPayload(async () => ({ template: await createTemplate(rt, ctx.principal, a.input) }));
    },
    updateTemplate: (_, a, ctx) => {
      guardMutation(ctx.principal, 'updateTemplate');
      return mutationPayload(async () => ({ template: await updateTemplate(rt, ctx.principal, a.id, a.input) }));
    },
    deleteTemplate: (_, a, ctx) => {
      guardMutation(ctx.principal, 'deleteTemplate');
      return mutationPayload(() => deleteTemplate(rt, ctx.principal, a.id));
    },
    createTemplateGroup: (_, a, ctx) => {
      guardMutation(ctx.principal, 'createTemplateGroup');
      return mutationPayload(async () => ({ group: await createGroup(templates.groupTree, ctx.principal, a.input) }));
    },
    updateTemplateGroup: (_, a, ctx) => {
      guardMutation(ctx.principal, 'updateTemplateGroup');
      return mutationPayload(async () => ({ group: await updateGroup(templates.groupTree, ctx.principal, a.id, a.input) }));
    },
    deleteTemplateGroup: (_, a, ctx) => {
      guardMutation(ctx.principal, 'deleteTemplateGroup');
      return mutationPayload(() => deleteGroup(templates.groupTree, ctx.principal, a.id));
    },
  };
}
