/**
 * The audit trail: every request an HTTP edge (GraphQL, REST, legacy, OAuth) answers becomes one
 * audit event, pushed when the response is done into a sink that publishes in batches (kit
 * BufferedPublisher on TOPICS.audit). Nothing here waits on the stream, so recording never
 * slows the request it records. Handlers describe what they served in `res.locals.audit`.
 */
import type { NextFunction, Request, Response } from 'express';
import { redactPath } from '../logger.js';
import type { AuditEventRecord } from '../telemetry.js';

/** Who made an authenticated call, as far as the audit trail (and the facades) need to know. */
export interface PrincipalSummary {
  accountId: string;
  userId: string;
  userName: string;
}

export interface AuditSink {
  push(record: AuditEventRecord): void;
}

/** The sink, keeping Read events only when `recordReads` (AUDIT_READS=false: writes, failures and logins only). */
export function auditReads(sink: AuditSink, recordReads: boolean): AuditSink {
  return recordReads ? sink : { push: (record) => void (record.event_type === 'Read' ? undefined : sink.push(record)) };
}

export type AuditInterface = 'graphql' | 'rest' | 'legacy' | 'oauth';

/**
 * Event types: Read (GET, GraphQL query), Write (other methods, GraphQL mutation),
 * AuthenticationFailed (401), RateLimited (429), Login / LoginFailed (OAuth sign-in page).
 */
export const AUDIT_EVENT_TYPES = ['Read', 'Write', 'AuthenticationFailed', 'RateLimited', 'Login', 'LoginFailed'] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** What a handler tells the audit trail about the request it served. */
export interface AuditNote {
  principal?: PrincipalSummary | undefined;
  eventType?: AuditEventType;
  controllerName?: string;
  actionName?: string;
}

/** The request's audit note (created on first use); handlers fill it in. */
export function auditNote(res: Response): AuditNote {
  return ((res.locals.audit as AuditNote | undefined) ??= {});
}

export interface AuditTrailOptions {
  sink: AuditSink | undefined;
  interface: AuditInterface;
  /** Controller name when the handler did not give one (e.g. from the path). */
  controller: (req: Request) => string;
  /** Requests not worth an event (ops endpoints, documentation). */
  skip?: (req: Request) => boolean;
}

const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The header an agent's tool call carries (the MCP server, mcp/): its tool's name prefixes the
 * event's action (`mcp:explain_screen ExplainScreen`), so the trail says which tool made each call.
 * It is a label on the caller's own events, not a credential: only a plain tool name is recorded.
 */
export const AGENT_TOOL_HEADER = 'x-pylon-tool';
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const toolPrefix = (req: Request) => {
  const tool = req.get(AGENT_TOOL_HEADER);
  return tool && TOOL_NAME.test(tool) ? `mcp:${tool} ` : '';
};

export function auditTrail(o: AuditTrailOptions) {
  const sink = o.sink;
  return (req: Request, res: Response, next: NextFunction) => {
    // CORS preflights are the browser asking, not the caller acting.
    if (!sink || req.method === 'OPTIONS' || OPS_PATHS.has(req.path) || o.skip?.(req)) return next();
    const started = new Date();
    res.once('close', () => {
      const note = (res.locals.audit as AuditNote | undefined) ?? {};
      // A client that went away before the answer was written: 499, as proxies log it.
      const status = res.writableFinished ? res.statusCode : 499;
      sink.push({
        event_id: crypto.randomUUID(),
        account_id: note.principal?.accountId ?? '',
        timestamp: started.toISOString(),
        event_type:
          note.eventType ??
          (status === 401 ? 'AuthenticationFailed' : status === 429 ? 'RateLimited' : req.method === 'GET' || req.method === 'HEAD' ? 'Read' : 'Write'),
        user_id: note.principal?.userId ?? '',
        user_name: note.principal?.userName ?? '',
        http_method: req.method,
        controller_name: note.controllerName ?? o.controller(req),
        action_name: `${toolPrefix(req)}${note.actionName ?? `${req.method} ${redactPath(req.baseUrl + req.path)}`}`.slice(0, 200),
        ip_address: req.ip ?? '',
        response_code: status,
        interface: o.interface,
      });
    });
    next();
  };
}
