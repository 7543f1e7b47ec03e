/** Audit events as the GraphQL interface shows them, and the filters they can be read with. */

/** limit of the audit queries: default 100 (spec, Limits), at most 1000. */
export const AUDIT_LIMIT = { default: 100, max: 1000 } as const;

export interface AuditEvent {
  eventId: string;
  /** YYYY-MM-DDTHH:MM:SSZ. */
  timestamp: string;
  eventType: string;
  userId: string | null;
  userName: string | null;
  httpMethod: string;
  controllerName: string;
  actionName: string;
  ipAddress: string | null;
  responseCode: number;
  /** graphql | rest | legacy | oauth */
  interface: string;
}

export interface AuditQuery {
  accountId: string;
  /** Events at or after this instant. */
  from?: Date;
  /** Events before this instant. */
  to?: Date;
  eventIds?: string[];
  userId?: string;
  eventType?: string;
  httpMethod?: string;
  controllerName?: string;
  actionName?: string;
  ipAddress?: string;
  responseCode?: number;
  limit: number;
  offset: number;
  /** GraphQL where / order inputs, translated (and refused when unknown) by the SQL builder. */
  where?: unknown;
  order?: unknown;
}
