/** GraphQL of media, playlist and template groups: one kit group tree per area, the same four fields each. */
import { createGroup, deleteGroup, listGroupViews, mutationPayload, updateGroup, type GroupListArgs, type GroupTree, type Principal } from '@pylon/kit';
import type { ContentRuntime } from '../../runtime.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';

type Ctx = { principal: Principal };

/** The list and the three writes of one area's groups. */
function groupFields(tree: GroupTree) {
  return {
    list: (_: unknown, args: GroupListArgs, ctx: Ctx) => listGroupViews(tree, ctx.principal, args),
    create: (_: unknown, a: { input: unknown }, ctx: Ctx) => mutationPayload(async () => ({ group: await createGroup(tree, ctx.principal, a.input) })),
    update: (_: unknown, a: { id: string; input: unknown }, ctx: Ctx) =>
      mutationPayload(async () => ({ group: await updateGroup(tree, ctx.principal, a.id, a.input) })),
    remove: (_: unknown, a: { id: string }, ctx: Ctx) => mutationPayload(() => deleteGroup(tree, ctx.principal, a.id)),
  };
}

export function groupResolvers({ repo }: ContentRuntime): Resolvers {
  const media = groupFields(repo.media.groupTree);
  const playlists = groupFields(repo.playlists.groupTree);
  const templates = groupFields(repo.templates.groupTree);
  return {
    Query: { mediaGroups: media.list, playlistGroups: playlists.list, templateGroups: templates.list },
    Mutation: {
      createMediaGroup: media.create,
      updateMediaGroup: media.update,
      deleteMediaGroup: media.remove,
      createPlaylistGroup: playlists.create,
      updatePlaylistGroup: playlists.update,
      deletePlaylistGroup: playlists.remove,
      createTemplateGroup: templates.create,
      updateTemplateGroup: templates.update,
      deleteTemplateGroup: templates.remove,
    },
  };
}
