/** GraphQL of templates: the list and its count, the writes, the Template and TemplateModule types. */
import { isoSeconds, mutationPayload } from '@pylon/kit';
import type { ContentRuntime } from '../../runtime.js';
import { countTemplates, listTemplates } from './list-templates.js';
import { createTemplate, deleteTemplate, updateTemplate } from './manage-templates.js';
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { playlistLoader, templateLoader } from '../../shared/loaders.js';

export function templateResolvers(rt: ContentRuntime): Resolvers {
  const repo = rt.repo;
  return {
    Query: {
      template: (_, args, ctx) => listTemplates(repo, ctx.principal, args),
      templateCount: (_, args, ctx) => countTemplates(repo, ctx.principal, args),
    },
    Mutation: {
      createTemplate: (_, a, ctx) => mutationPayload(async () => ({ template: await createTemplate(rt, ctx.principal, a.input) })),
      updateTemplate: (_, a, ctx) => mutationPayload(async () => ({ template: await updateTemplate(rt, ctx.principal, a.id, a.input) })),
      deleteTemplate: (_, a, ctx) => mutationPayload(() => deleteTemplate(rt, ctx.principal, a.id)),
    },
    Template: {
      __resolveReference: (ref, ctx) => templateLoader(repo, ctx).load(ref.id),
      modules: (t) => t.modules ?? [],
      tags: (t) => t.tags ?? [],
      createdOn: (t) => isoSeconds(t.createdAt),
      updatedOn: (t) => isoSeconds(t.updatedAt),
    },
    TemplateModule: {
      // The module's playlist through the same batched loader as Playlist's __resolveReference.
      playlist: (m, _, ctx) => (m.playlistId ? playlistLoader(repo, ctx).load(m.playlistId) : null),
    },
  };
}
