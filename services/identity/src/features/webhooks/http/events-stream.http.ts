/**
 * `GET /events/stream`: the account's push events as Server-Sent Events.
 *
 * - Authenticated like every REST call (API key or bearer); each event is sent only when the caller
 *   holds the policy its type names in the catalogue (`PUSH_EVENT_CATALOGUE[type].view`).
 * - `Last-Event-ID` (header, or `last_event_id` for clients that cannot set it) resumes right after
 *   that event from the durable log (24 h); an unknown or pruned id answers 410 so no gap goes unnoticed.
 *   Without it the stream starts with the next event.
 * - Filters: `types=a,b` (catalogue names), `device_id=x` (repeatable, at most 100).
 * - A comment line every 15 s keeps proxies from closing an idle stream.
 * - Limits (issue 34, M2/M3): at most MAX_STREAMS_PER_CREDENTIAL open streams per credential (API
 *   key; an OAuth token's streams count per user) and MAX_STREAMS_PER_ACCOUNT per account; beyond, 429 with Retry-After. Counted
 *   once, by `leases`: the embedded ones count this process's streams, Redis's every replica's. Each
 *   open stream holds a lease per name, renewed while it is open, so the streams of a process that
 *   crashed stop counting within LEASE_SECONDS. While the count does not answer, a new stream is
 *   refused (503 with Retry-After) rather than opened uncounted; open streams go on.
 *   The credential is checked again every few seconds (`recheck`): a revoked key or an expired
 *   token ends the stream with an `error` event instead of leaving it open.
 */
import { createHash, randomUUID } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import {
  allows,
  isPushEventType,
  PUSH_EVENT_CATALOGUE,
  type Leases,
  type LiveStreamMetrics,
  type Principal,
  type PubSub,
  type PushEvent,
  type PushEventType,
} from '@pylon/kit';
import { EVENT_LOG_APPENDED, type PushEventLog } from '../push-event-log.repository.js';

/** Open streams one credential may hold (as `leases` count them: across replicas with Redis). */
export const MAX_STREAMS_PER_CREDENTIAL = 10;
/** Open streams one account may hold (likewise). */
export const MAX_STREAMS_PER_ACCOUNT = 50;
/** How often an open stream's credential is checked again. */
export const RECHECK_MS = 2_000;
/** How long a stream's shared lease lasts without renewal (renewed every third of it while open). */
export const LEASE_SECONDS = 30;

export interface EventsStreamOptions {
  authenticate(req: Request): Promise<Principal | null>;
  /**
   * The stream's principal as it stands now, or null once its credential no longer holds (revoked,
   * expired). Its policies decide which event types the stream still sends: a caller who lost a
   * policy stops getting the types it guarded. Default: authenticate the request again
   * (revocations bypass the principal cache) and want the same account and user.
   */
  recheck?(req: Request, principal: Principal): Promise<Principal | null>;
  /**
   * The name a request's open streams are counted under (MAX_STREAMS_PER_CREDENTIAL). Default: the
   * hashed credential header or parameter, else the principal's user. The composition root passes
   * the resolution its authenticator uses, so headers it ignores cannot make a new name.
   */
  credentialKey?(req: Request, principal: Principal): string;
  recheckMs?: number;
  maxPerCredential?: number;
  maxPerAccount?: number;
  /** The count of open streams: embedded (this process) or Redis (every replica), so the limits hold across replicas. */
  leases: Leases;
  leaseSeconds?: number;
  /** Open streams and log reads, on /metrics. */
  metrics?: LiveStreamMetrics | undefined;
  /**
   * The log writer's notices (EVENT_LOG_APPENDED over the pub/sub port): with them an idle stream
   * reads the log when its account has new events (and at each re-check), not every pollMs.
   */
  appended?: PubSub | undefined;
  /** Without `appended`: how often the log is read for new entries. Default 200 ms. */
  pollMs?: number;
  heartbeatMs?: number;
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((x) => String(x).split(',')).filter(Boolean);
const refuse = (res: Response, status: number, code: string, message: string, field?: string) =>
  res.status(status).json({ error: { code, message, ...(field ? { field } : {}) } });

/**
 * Which credential a request carries (hashed: never kept in clear); when it came signed by the
 * gateway, the API key its principal names, else its user (a bearer token's holder).
 */
function credentialOf(req: Request, principal: Principal): string {
  const raw = req.get('x-service-apikey') ?? req.get('authorization') ?? (typeof req.query.api_key === 'string' ? req.query.api_key : undefined);
  if (raw) return createHash('sha256').update(raw).digest('base64url');
  const c = principal.credential;
  return c?.kind === 'api-key' ? `key:${principal.accountId}/${c.id}` : `${principal.accountId}/${principal.userId}`;
}

/** A re-check that authenticates the request again and wants the same account and user. */
export const recheckBy =
  (authenticate: (req: Request) => Promise<Principal | null>) =>
  async (req: Request, p: Principal): Promise<Principal | null> => {
    const again = await authenticate(req).catch(() => null);
    return again !== null && again.accountId === p.accountId && again.userId === p.userId ? again : null;
  };

/** The event types a principal's policies let it read. */
const readableBy = (principal: Principal): PushEventType[] =>
  (Object.keys(PUSH_EVENT_CATALOGUE) as PushEventType[]).filter((t) => allows(principal, PUSH_EVENT_CATALOGUE[t].view));

/**
 * The lease names a stream holds: its credential's and its account's. Both carry the account as a
 * Redis Cluster hash tag (`{...}`): the leases script touches both keys at once, which a cluster
 * refuses (CROSSSLOT) unless they hash to one slot. The names before the tag
 * (`events-stream:credential:<c>`, `events-stream:account:<a>`) are no longer read: during a rolling
 * deploy, old and new replicas count their streams apart until the old ones stop (their leases then
 * lapse within LEASE_SECONDS).
 */
const streamLeaseNames = (account: string, credential: string): [credential: string, account: string] => [
  `events-stream:{${account}}:credential:${credential}`,
  `events-stream:{${account}}:account`,
];

/** The router, and `closeAll` for shutdown (open streams end at once instead of holding the server). */
export function createEventsStreamHttp(log: PushEventLog, o: EventsStreamOptions): Router & { closeAll(): void } {
  const router = express.Router();
  const open = new Set<() => void>();
  const maxPerCredential = o.maxPerCredential ?? MAX_STREAMS_PER_CREDENTIAL;
  const maxPerAccount = o.maxPerAccount ?? MAX_STREAMS_PER_ACCOUNT;
  // One subscription per process (issue 34, M2): each notice wakes the open streams of its accounts.
  const wakers = new Map<string, Set<() => void>>();
  const subscribed = o.appended?.subscribe(EVENT_LOG_APPENDED, (accounts) => {
    for (const a of Array.isArray(accounts) ? accounts : []) for (const wake of wakers.get(String(a)) ?? []) wake();
  });
  subscribed?.catch(() => undefined);
  const recheck = o.recheck ?? recheckBy(o.authenticate);
  const credentialKey = o.credentialKey ?? credentialOf;
  router.get('/events/stream', async (req, res) => {
    let principal: Principal | null;
    try {
      principal = await o.authenticate(req);
    } catch {
      principal = null;
    }
    if (!principal)
      return refuse(res, 401, 'UNAUTHENTICATED', 'authentication required: send the X-Service-ApiKey header, the api_key parameter or a bearer token');
    const types = list(req.query.types);
    const bad = types.find((t) => !isPushEventType(t));
    if (bad !== undefined) return refuse(res, 400, 'BAD_USER_INPUT', `types names '${bad.slice(0, 100)}', not a catalogue event type`, 'types');
    const devices = list(req.query.device_id);
    if (devices.length > 100) return refuse(res, 400, 'BAD_USER_INPUT', 'at most 100 device_id values', 'device_id');
    const readable = readableBy(principal);
    if (readable.length === 0) return refuse(res, 403, 'FORBIDDEN', 'no event type is readable with your policies');
    const tenant = principal.accountId;
    const lastId = String(req.get('last-event-id') ?? req.query.last_event_id ?? '').slice(0, 100);
    let seq: string | null;
    if (lastId) {
      seq = await log.seqOf(tenant, lastId);
      if (seq === null)
        return refuse(res, 410, 'GONE', `event '${lastId}' is not in the log (unknown, or older than 24 hours): start without Last-Event-ID`, 'Last-Event-ID');
    } else seq = await log.head(tenant);

    const credential = credentialKey(req, principal);
    const holder = randomUUID();
    const [credentialLease, accountLease] = streamLeaseNames(tenant, credential);
    const leaseNames = [credentialLease, accountLease];
    const leaseSeconds = o.leaseSeconds ?? LEASE_SECONDS;
    let full: string | null;
    try {
      full = await o.leases.acquire(
        [
          { name: credentialLease, limit: maxPerCredential },
          { name: accountLease, limit: maxPerAccount },
        ],
        holder,
        leaseSeconds,
      );
    } catch {
      // Not opened uncounted: the limits are what keeps one caller from holding every connection.
      res.setHeader('Retry-After', '5');
      return refuse(res, 503, 'UNAVAILABLE', 'open event streams cannot be counted right now; retry shortly');
    }
    if (full) {
      res.setHeader('Retry-After', '30');
      const what = full === credentialLease ? `this credential already holds ${maxPerCredential}` : `this account already holds ${maxPerAccount}`;
      return refuse(res, 429, 'RATE_LIMITED', `${what} open event streams; close one first`);
    }
    o.metrics?.open.inc();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(': stream open\n\n');
    let closed = false;
    // Set by a notice (or a close) and cleared before each read, so a notice during a read is not lost.
    let dirty: boolean;
    let wakeNow: (() => void) | undefined;
    const wake = () => {
      dirty = true;
      wakeNow?.();
    };
    const stop = () => {
      closed = true;
      wake();
    };
    open.add(stop);
    req.on('close', stop);
    // Gone while the limits were counted (its close event already passed).
    if (req.socket.destroyed) stop();
    const notified = o.appended !== undefined && (await subscribed?.then(() => true).catch(() => false)) === true;
    if (notified) {
      if (!wakers.has(tenant)) wakers.set(tenant, new Set());
      wakers.get(tenant)!.add(wake);
    }
    const wanted = new Set(types.length ? types.filter((t) => readable.includes(t as PushEventType)) : readable);
    const deviceSet = new Set(devices);
    try {
      let lastBeat = Date.now();
      let lastCheck = Date.now();
      let lastRenew = Date.now();
      const renewMs = (leaseSeconds * 1000) / 3;
      while (!closed) {
        if (Date.now() - lastRenew >= renewMs) {
          lastRenew = Date.now();
          // Renewing also takes the lease again if it lapsed while Redis was away; a failed renewal waits for the next.
          await o.leases.renew(leaseNames, holder, leaseSeconds).catch(() => undefined);
        }
        if (Date.now() - lastCheck >= (o.recheckMs ?? RECHECK_MS)) {
          lastCheck = Date.now();
          const current = await recheck(req, principal).catch(() => null);
          if (!current) {
            res.write(`event: error\ndata: ${JSON.stringify({ code: 'UNAUTHENTICATED', message: 'the credential was revoked or has expired' })}\n\n`);
            break;
          }
          // Policies lost since the stream opened: their event types stop (all of them: the stream ends).
          const stillReadable = new Set(readableBy(current));
          for (const t of wanted) if (!stillReadable.has(t as PushEventType)) wanted.delete(t);
          if (wanted.size === 0) {
            res.write(
              `event: error\ndata: ${JSON.stringify({ code: 'FORBIDDEN', message: 'your policies no longer allow any event type this stream sends' })}\n\n`,
            );
            break;
          }
        }
        dirty = false;
        o.metrics?.logReads.inc();
        const batch = await log.after(tenant, seq, 500).catch(() => []);
        for (const entry of batch) {
          seq = entry.seq;
          if (!wanted.has(entry.type)) continue;
          if (deviceSet.size && (!entry.deviceId || !deviceSet.has(entry.deviceId))) continue;
          const e = entry.event as PushEvent;
          res.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
        }
        if (Date.now() - lastBeat >= (o.heartbeatMs ?? 15_000)) {
          res.write(': heartbeat\n\n');
          lastBeat = Date.now();
        }
        if (batch.length >= 500) continue;
        if (!notified) {
          await new Promise((r) => setTimeout(r, o.pollMs ?? 200));
          continue;
        }
        // Until a notice, the next re-check, heartbeat or lease renewal, whichever comes first.
        const due = Math.min(lastCheck + (o.recheckMs ?? RECHECK_MS), lastBeat + (o.heartbeatMs ?? 15_000), lastRenew + renewMs) - Date.now();
        if (!dirty && due > 0)
          await new Promise<void>((r) => {
            const t = setTimeout(r, due);
            wakeNow = () => {
              clearTimeout(t);
              r();
            };
          });
        wakeNow = undefined;
      }
    } finally {
      open.delete(stop);
      const mine = wakers.get(tenant);
      mine?.delete(wake);
      if (mine?.size === 0) wakers.delete(tenant);
      void o.leases.release(leaseNames, holder).catch(() => undefined);
      o.metrics?.open.dec();
      res.end();
    }
  });
  return Object.assign(router, {
    closeAll() {
      for (const stop of open) stop();
    },
  });
}
