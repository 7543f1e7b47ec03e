/**
 * What the signed-in user may do, from the `permissions` query (asked once per session): pages and
 * controls are shown only where the user's policies allow them; the API enforces the same rules.
 */
import { createContext, useContext } from 'react';
import { graphql } from '../gql';
import type { PermissionsQuery } from '../gql/graphql';

export const PermissionsDocument = graphql(`
  query Permissions {
    permissions {
      isAdministrator
      permissions {
        resource
        canView
        canEdit
        canDelete
      }
    }
  }
`);

export type Resource =
  | 'Devices'
  | 'Files'
  | 'Playlists'
  | 'Templates'
  | 'Schedules'
  | 'Alerts'
  | 'DataTables'
  | 'Analytics'
  | 'Users'
  | 'AuditEvents'
  | 'Overrides'
  | 'Webhooks'
  | 'Account'
  | 'ApiKeys';
export type Access = 'view' | 'edit' | 'delete';
const FLEET: Resource[] = ['Devices', 'Files', 'Playlists', 'Templates', 'Schedules', 'Alerts', 'DataTables', 'Analytics'];

export class Rights {
  constructor(private readonly p: NonNullable<PermissionsQuery['permissions']>) {}
  can(resource: Resource, access: Access = 'view'): boolean {
    if (this.p.isAdministrator) return true;
    const r = this.p.permissions.find((x) => x.resource === resource);
    return !!r && (access === 'view' ? r.canView : access === 'edit' ? r.canEdit : r.canDelete);
  }
  /**
   * False for a user whose policies let them view none of the fleet's resources (Account reads
   * are every user's, so they do not count): the console has nothing to show them.
   */
  get any(): boolean {
    return this.p.isAdministrator || FLEET.some((r) => this.can(r));
  }
}

export const RightsContext = createContext<Rights | null>(null);

export function useRights(): Rights {
  const r = useContext(RightsContext);
  if (!r) throw new Error('useRights outside the signed-in console');
  return r;
}
