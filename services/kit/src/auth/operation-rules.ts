/**
 * The one table of what every root field (and every entity a subgraph resolves by reference)
 * requires; a root field's rule is declared beside it in the SDL (`@policy`). `createSubgraph`
 * wraps every Query and Mutation root field with its rule (graphql/subgraph.ts, guardRootFields),
 * and every entity's `__resolveReference` with ENTITY_RULES (guardEntityReferences), so resolvers
 * write no guard; `guardQuery` and `guardHandler` guard the plain-HTTP routes. The identity subgraph's `permissions` query is computed
 * from the same table, so what `permissions` reports is what the API enforces. `services/kit/test/unit/operation-rules.test.ts` checks that every root field
 * of the composed schema has a rule and every rule names a field; `gateway/test/access.e2e.test.ts`
 * calls every field with every role.
 */
import { MUTATION_POLICIES, QUERY_POLICIES } from '../generated/operation-rules.generated.js';
import { allows, requireRule, type AccessRule, type Requirement } from './access.js';
import type { Principal } from './principal.js';

/**
 * What every query requires: each field's `@policy(name: ...)` beside it in its subgraph's SDL
 * (schema/subgraphs/*.graphql), collected by `npm run codegen` (a root field without one fails
 * codegen). The spec's Queries table plus the account administration queries of the identity
 * subgraph.
 */
export const QUERY_RULES = QUERY_POLICIES satisfies Record<string, Requirement>;

/**
 * What every mutation requires, from the same `@policy` directives: the spec's Mutations table,
 * plus the account administration mutations of the identity subgraph. `permissions` derives
 * allowedMutations and deniedMutations from this table.
 */
export const MUTATION_RULES = MUTATION_POLICIES satisfies Record<string, Requirement>;

/**
 * Entities other subgraphs reach by key (`_entities`): the same rule as the type's list query.
 * Account and Organization are only ever the caller's own (scoped by account id), so any caller.
 * createSubgraph wraps each resolvable entity's reference resolver with its rule; a resolvable
 * entity missing here stops the subgraph from starting.
 */
export const ENTITY_RULES = {
  Device: 'Devices_View',
  Media: 'Files_View',
  Playlist: 'Playlists_View',
  Template: 'Templates_View',
  User: 'Account_ManageUsers_View',
  Account: 'Authenticated',
  Organization: 'Authenticated',
} as const satisfies Record<string, Requirement>;

/**
 * Fields shown only to callers who hold more than the type's own rule; others read null.
 * Device.registrationKey is the player's credential: a viewer could impersonate the screen.
 */
export const FIELD_RULES = {
  'Device.registrationKey': 'Devices_Edit',
} as const satisfies Record<string, Requirement>;

/**
 * REST operations served by a plain-HTTP handler (`x-pylon-handler` in rest.yaml) rather than
 * through a GraphQL field, keyed by operationId: what each requires.
 */
export const HANDLER_RULES = {
  listReports: 'Analytics_View',
  exportReport: 'Analytics_View',
  adhawkReport: 'Analytics_View',
} as const satisfies Record<string, Requirement>;

export type QueryName = keyof typeof QUERY_RULES;
export type HandlerName = keyof typeof HANDLER_RULES;
export type MutationName = keyof typeof MUTATION_RULES;
export type EntityName = keyof typeof ENTITY_RULES;
export type GuardedField = keyof typeof FIELD_RULES;

/** Throws FORBIDDEN unless the caller may run this query. */
export const guardQuery = (p: Pick<Principal, 'policies' | 'roles'>, field: QueryName): void => requireRule(p, QUERY_RULES[field]);
/** Throws FORBIDDEN unless the caller may run this mutation. */
export const guardMutation = (p: Pick<Principal, 'policies' | 'roles'>, field: MutationName): void => requireRule(p, MUTATION_RULES[field]);
/** Throws FORBIDDEN unless the caller may call this handler-served REST operation. */
export const guardHandler = (p: Pick<Principal, 'policies' | 'roles'>, op: HandlerName): void => requireRule(p, HANDLER_RULES[op]);

/** Whether the caller may read a guarded field (it resolves to null otherwise). */
export const mayReadField = (p: Pick<Principal, 'policies' | 'roles'>, field: GuardedField): boolean => allows(p, FIELD_RULES[field]);

/** Resources reported by `permissions`, with the rule that governs each right. */
export const RESOURCES: readonly { resource: string; view: AccessRule; edit?: AccessRule; delete?: AccessRule }[] = [
  { resource: 'Devices', view: 'Devices_View', edit: 'Devices_Edit', delete: 'Devices_Delete' },
  { resource: 'Files', view: 'Files_View', edit: 'Files_Edit', delete: 'Files_Delete' },
  { resource: 'Playlists', view: 'Playlists_View', edit: 'Playlists_Edit', delete: 'Playlists_Delete' },
  { resource: 'Templates', view: 'Templates_View', edit: 'Templates_Edit', delete: 'Templates_Delete' },
  { resource: 'Schedules', view: 'Schedules_View', edit: 'Schedules_Edit', delete: 'Schedules_Delete' },
  { resource: 'Alerts', view: 'Alerts_View' },
  { resource: 'DataTables', view: 'DataTables_View', edit: 'DataTables_Edit', delete: 'DataTables_Delete' },
  { resource: 'Analytics', view: 'Analytics_View' },
  { resource: 'Users', view: 'Account_ManageUsers_View', edit: 'Administrator' },
  { resource: 'AuditEvents', view: 'AuditEventsOwnerOnly' },
  { resource: 'Overrides', view: 'Schedules_View', edit: 'Overrides_Edit', delete: 'Overrides_Edit' },
  { resource: 'Webhooks', view: 'Webhooks_View', edit: 'Webhooks_Edit', delete: 'Webhooks_Edit' },
  { resource: 'Account', view: 'Authenticated', edit: 'Administrator' },
  { resource: 'ApiKeys', view: 'Administrator', edit: 'Administrator', delete: 'Administrator' },
];
