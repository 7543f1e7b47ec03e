/** `permissions`: computed from kit's operation-rules, the table every root field is guarded by. */
import type { Resolvers } from '../../shared/resolvers.generated.js';
import { permissionsOf } from './permissions.js';

export const permissionResolvers = (): Resolvers => ({
  Query: {
    permissions: (_, __, ctx) => permissionsOf(ctx.principal),
  },
});
