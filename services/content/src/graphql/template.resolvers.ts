import { isoSeconds, requirePolicy, type SubgraphContext } from '@pylon/kit';
import type { ContentRepository, Template } from '../content.repository.js';
import { listGroups } from '../use-cases/list-groups.js';
import type { ListQuery } from '../use-cases/list-items.js';
import { listTemplates } from '../use-cases/list-templates.js';
import { templateLoader } from './loaders.js';

export function templateResolvers(repo: ContentRepository) {
  return {
    Query: {
      template: (_: unknown, args: ListQuery, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Templates_View');
        return listTemplates(repo, ctx.principal, args);
      },
      templateGroups: (_: unknown, args: { tree?: boolean | null }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Templates_View');
        return listGroups(repo.templates, ctx.principal, args.tree === true);
      },
    },
    Template: {
      __resolveReference: (ref: { id: string }, ctx: SubgraphContext) => {
        requirePolicy(ctx.principal, 'Templates_View');
        return templateLoader(repo, ctx).load(ref.id);
      },
      modules: (t: Template) => t.modules ?? [],
      tags: (t: Template) => t.tags ?? [],
      createdOn: (t: Template) => isoSeconds(t.createdAt),
      updatedOn: (t: Template) => isoSeconds(t.updatedAt),
    },
  };
}
