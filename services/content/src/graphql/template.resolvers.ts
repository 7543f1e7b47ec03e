import { isoSeconds, listGroupViews } from '@pylon/kit';
import type { ContentRuntime } from '../runtime.js';
import { countTemplates, listTemplates } from '../use-cases/list-templates.js';
import type { Resolvers } from './resolvers.generated.js';
import { playlistLoader, templateLoader } from './loaders.js';

export function templateResolvers(rt: ContentRuntime): Resolvers {
  const repo = rt.repo;
  return {
    Query: {
      template: (_, args, ctx) => {
        return listTemplates(repo, ctx.principal, args);
      },
      templateCount: (_, args, ctx) => {
        return countTemplates(repo, ctx.principal, args);
      },
      templateGroups: (_, args, ctx) => {
        return listGroupViews(repo.templates.groupTree, ctx.principal, args);
      },
    },
    Template: {
      __resolveReference: (ref, ctx) => {
        return templateLoader(repo, ctx).load(ref.id);
      },
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
