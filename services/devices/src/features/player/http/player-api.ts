/**
 * The player API: what the screens themselves call, authenticated by their registration key
 * (the path segment), not by API keys. Not GraphQL-driven: it is the hot path (every device pings
 * every few seconds), so it talks to the use-cases directly. Mounted by the all-in-one server
 * before the REST facade, and by services/devices/src/main.ts in distributed mode.
 *
 *   POST /player/{registrationKey}/ping[?wait=seconds][&manifest=inline]  ping data in, queued commands out (inline: a changed manifest too)
 *   POST /player/{registrationKey}/commands/{commandId}/ack      { status: acknowledged | delivered | failed, message? }
 *   PUT  /player/{registrationKey}/snap                          image/jpeg body (size-capped, magic bytes checked)
 *   POST /player/{registrationKey}/track                         { session_id, event_name, properties }
 *   GET  /player/{registrationKey}/manifest                      what to play now and next (ETag / If-None-Match: 304)
 *   POST /player/{registrationKey}/overrides/{overrideId}/ack     { state: SHOWING | ENDED }: the screen shows / stopped an emergency override
 *   POST /player/{registrationKey}/playlogs|events|impressions   a batch of records; 202 once durably held
 *   GET  /player/{registrationKey}/datatables/{tableId}/rows     a menu board's rows (ETag / If-None-Match: 304)
 *   POST /player/pairings                                        a screen without a key: { code, secret, expires_at } (rate-limited per address)
 *   GET  /player/pairings/{secret}                               { status: pending } until claimed, then { status: claimed, registration_key }
 *
 * Errors: { "error": { "code", "message", "field"?, "request_id"? } } with the kit's statuses; an
 * unknown, malformed or deleted key is always the same 401. Like API keys at the edge, failed keys
 * are counted per client address: past the budget every request from that address is a 429 with
 * Retry-After (even with a right key, so guessing learns nothing), until the window ends.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { AppError, invalidJsonMessage, isAppError, sendRestError, type ErrorCode, type RateLimitDecision, type RateLimiter } from '@pylon/kit';
import type { TelemetryKind, TelemetryLimit } from '../../../config.js';
import type { Device } from '../../../shared/device.repository.js';
import type { DevicesRuntime } from '../../../runtime.js';
import { ackCommand } from '../../commands/ack-command.js';
import { authenticatePlayer, badPlayerKey } from '../player-auth.js';
import { pollPairing, requestPairing } from '../../pairing/pairing.js';
import { recordPing } from '../record-ping.js';
import { storeSnap } from '../snaps.js';
import { trackEvent } from '../track-event.js';
import { INGESTERS } from '../ingest-player-records.js';
import { refuseOversizedBatch, type PlayerRecordKind } from '../../../domain/player-records.js';
import { batchBody } from './batch-body.js';

type Handler = (req: Request, res: Response) => Promise<void>;

export interface PlayerApiOptions {
  /** Failed registration keys per client address (the composition root builds it over the cache: Redis when scaled). */
  failures: RateLimiter;
  /** Records per screen by kind (config playerTelemetryLimits): 429 with Retry-After beyond. */
  telemetry: Record<TelemetryKind, TelemetryLimit>;
}

const KIND_NAMES: Record<TelemetryKind, string> = { pings: 'pings', playlogs: 'play logs', events: 'events', impressions: 'impressions' };

/** Kit's envelope, with Retry-After on refusals that end, and the registration-key challenge on a 401. */
function sendError(res: Response, code: ErrorCode, message: string, field?: string, retryAfter?: number): void {
  const headers: Record<string, string> = {};
  if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
  if (code === 'UNAUTHENTICATED') headers['WWW-Authenticate'] = 'RegistrationKey realm="pylon-player"';
  sendRestError(res, code, message, { field, headers });
}

/** `?wait=` as whole seconds, or a 400 naming it. */
function waitOf(req: Request, max: number): number {
  const raw = req.query.wait;
  if (raw === undefined) return 0;
  if (typeof raw !== 'string' || !/^\d{1,4}$/.test(raw) || Number(raw) > max) {
    throw new AppError('BAD_USER_INPUT', `wait must be whole seconds from 0 to ${max}`, { field: 'wait' });
  }
  return Number(raw);
}

/** Data tables one ping may name (`?tables=id1,id2`): the tables a screen's modules show. */
export const MAX_PING_TABLES = 20;

function tablesOf(req: Request): string[] {
  const raw = req.query.tables;
  if (raw === undefined || raw === '') return [];
  const ids = typeof raw === 'string' ? raw.split(',') : null;
  if (!ids || ids.length > MAX_PING_TABLES || ids.some((id) => id.length === 0 || id.length > 200)) {
    throw new AppError('BAD_USER_INPUT', `tables must be 1 to ${MAX_PING_TABLES} comma-separated data table ids`, { field: 'tables' });
  }
  return ids;
}

/** Every `data_table_id` a manifest names (its templates' modules, now and later), walked iteratively. */
function tablesNamedBy(manifest: unknown): Set<string> {
  const found = new Set<string>();
  const stack: unknown[] = [manifest];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    for (const [k, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
      if (k === 'data_table_id' && typeof child === 'string') found.add(child);
      else stack.push(child);
    }
  }
  return found;
}

/** The player sends snake_case; events go in as the use-case's camelCase. */
function eventInput(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const { session_id, event_name, properties, ...rest } = body as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw new AppError('BAD_USER_INPUT', `unknown field '${extra.slice(0, 50)}'`, { field: extra.slice(0, 50) });
  return { sessionId: session_id, eventName: event_name, properties };
}

/** A batch route's URL as players send it: a key of the registration-key alphabet, the kind in lower case, perhaps a query. */
const BATCH_URL = /^\/player\/([A-Za-z0-9_-]{8,128})\/(playlogs|events|impressions)(?:\?|$)/;

const tooManyFailures = (retryAfter: number) =>
  new AppError('RATE_LIMITED', `too many unknown registration keys from this address; retry in ${retryAfter} s`, { retryAfter });

export function createPlayerApi(rt: DevicesRuntime, options: PlayerApiOptions): Router {
  const router = express.Router();
  const { failures, telemetry } = options;
  const addressOf = (req: Request) => `player:${req.ip ?? 'unknown'}`;
  // A limiter that errors (not a refusal) must not take the players down: decide "allowed".
  const safely = async (run: () => Promise<RateLimitDecision>): Promise<RateLimitDecision> => {
    try {
      return await run();
    } catch (err) {
      rt.logger.warn({ err }, 'player limiter failed; request allowed');
      return { allowed: true, remaining: 0 };
    }
  };
  // One screen's records of a kind (issue 34, M4): a refused request still counts, which only
  // matters within the window Retry-After names.
  const charge = async (kind: TelemetryKind, device: Device, records: number) => {
    const { limiter, perSecond, burst } = telemetry[kind];
    const d = await safely(() => limiter.consume(`${device.accountId}:${device.id}`, records));
    if (d.allowed) return;
    throw new AppError(
      'RATE_LIMITED',
      `this screen sent more ${KIND_NAMES[kind]} than its limit (${perSecond} per second, ${burst} at once); retry in ${d.retryAfterSeconds} s`,
      { retryAfter: d.retryAfterSeconds },
    );
  };
  const recordsIn = (body: unknown) => (Array.isArray(body) ? Math.max(1, body.length) : 1);

  // A full batch (MAX_PLAYER_BATCH records) of plain records fits well within this.
  const batchJson = batchBody(1_000_000, express.json({ limit: 1_000_000 }));
  const readBatch = (req: Request, res: Response) =>
    new Promise<void>((resolve, reject) => batchJson(req, res, (err?: unknown) => (err ? reject(err as Error) : resolve())));
  /**
   * POST /player/{key}/playlogs|events|impressions once the key's address passed the failed-key check.
   * The key is authenticated before the body is read (an unknown key costs no parsing); the batch is
   * refused over its limit before its records are charged (the same 413 parsing gives: a batch longer
   * than the burst was 429, retried for ever; a shorter one spent the burst first); 202 once held.
   */
  const ingestBatch = async (req: Request, res: Response, kind: PlayerRecordKind, registrationKey: string) => {
    const device = await authenticatePlayer(rt, registrationKey);
    await readBatch(req, res);
    res.setHeader('Cache-Control', 'no-store');
    refuseOversizedBatch(req.body);
    await charge(kind, device, recordsIn(req.body));
    const result = await INGESTERS[kind](rt, device, req.body);
    // Written directly: res.json would also hash the body for an ETag nobody revalidates.
    res.status(202).setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(result));
  };
  // The batch routes are the hot path (a fleet's play logs: thousands of requests a second), so a
  // plain URL (a well-formed key, the kind in lower case) is answered here, ahead of the router's
  // other layers, with the same steps as the routes below (the failed-key check, then ingestBatch)
  // and the same metrics label. Any other spelling goes on to those routes, which decode it as ever.
  router.use((req: Request, res: Response, next: NextFunction) => {
    const m = req.method === 'POST' ? BATCH_URL.exec(req.url) : null;
    if (!m) return next();
    const kind = m[2] as PlayerRecordKind;
    safely(() => failures.peek(addressOf(req)))
      .then((d) => {
        if (!d.allowed) throw tooManyFailures(d.retryAfterSeconds);
        res.locals.route = `/player/:registrationKey/${kind}`;
        return ingestBatch(req, res, kind, m[1]!);
      })
      .catch(next);
  });

  // Pairing (no key yet): before the key routes, which would read "pairings" as a key.
  router.post('/player/pairings', express.json({ limit: 4_000 }), (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    requestPairing(rt, req.body, req.ip ?? 'unknown')
      .then((started) => res.status(201).json(started))
      .catch(next);
  });
  router.get('/player/pairings/:secret', (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    pollPairing(rt, String(req.params.secret))
      .then((poll) => res.json(poll))
      .catch(next);
  });

  // An address over its failed-key budget is refused before its key is even looked up.
  router.use('/player/:registrationKey', (req: Request, _res: Response, next: NextFunction) => {
    safely(() => failures.peek(addressOf(req)))
      .then((d) => next(d.allowed ? undefined : tooManyFailures(d.retryAfterSeconds)))
      .catch(next);
  });
  // Ping bodies may carry a base64 screenshot (4/3 of the snap cap) besides the figures.
  const pingJson = express.json({ limit: Math.ceil(rt.settings.maxSnapBytes * 1.4) + 64_000 });
  const smallJson = express.json({ limit: 64_000 });
  const jpeg = express.raw({ type: () => true, limit: rt.settings.maxSnapBytes });

  const wrap = (h: Handler) => (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    h(req, res).catch(next);
  };
  const key = (req: Request) => String(req.params.registrationKey);

  router.post(
    '/player/:registrationKey/ping',
    pingJson,
    wrap(async (req, res) => {
      const waitSeconds = waitOf(req, rt.settings.maxPingWaitSeconds);
      const tableIds = tablesOf(req);
      const ac = new AbortController();
      // The client went away during a long-poll: stop waiting.
      res.on('close', () => {
        if (!res.writableFinished) ac.abort();
      });
      const result = await recordPing(rt, {
        registrationKey: key(req),
        body: req.body,
        ip: req.ip,
        waitSeconds,
        signal: ac.signal,
        tableIds,
        admit: (device) => charge('pings', device, 1),
        inlineManifest: req.query.manifest === 'inline',
      });
      if (!res.headersSent && !res.destroyed) res.json(result);
    }),
  );

  router.post(
    '/player/:registrationKey/commands/:commandId/ack',
    smallJson,
    wrap(async (req, res) => {
      await charge('pings', await authenticatePlayer(rt, key(req)), 1);
      res.json(await ackCommand(rt, key(req), String(req.params.commandId), req.body));
    }),
  );

  router.put(
    '/player/:registrationKey/snap',
    // Authenticate and check the declared type before reading up to maxSnapBytes from the caller.
    (req: Request, res: Response, next: NextFunction) => {
      authenticatePlayer(rt, key(req))
        .then(async (device) => {
          await charge('pings', device, 1);
          res.locals.device = device;
          const type = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
          if (type !== 'image/jpeg') throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the screenshot must be sent as Content-Type: image/jpeg');
          next();
        })
        .catch(next);
    },
    jpeg,
    wrap(async (req, res) => {
      await storeSnap(rt, res.locals.device, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      res.status(204).end();
    }),
  );

  router.post(
    '/player/:registrationKey/track',
    smallJson,
    wrap(async (req, res) => {
      const device = await authenticatePlayer(rt, key(req));
      await charge('events', device, 1);
      const t = trackEvent(rt, device, eventInput(req.body));
      res.status(202).json({ event_id: t.eventId, device_id: t.deviceId, timestamp: t.timestamp });
    }),
  );

  for (const kind of Object.keys(INGESTERS) as PlayerRecordKind[]) {
    router.post(
      `/player/:registrationKey/${kind}`,
      (req: Request, res: Response, next: NextFunction) => void ingestBatch(req, res, kind, key(req)).catch(next),
    );
  }

  router.get(
    '/player/:registrationKey/manifest',
    wrap(async (req, res) => {
      const device = await authenticatePlayer(rt, key(req));
      if (!rt.manifests) throw new AppError('UNAVAILABLE', 'manifests are not served by this deployment');
      const answer = await rt.manifests.manifest({ accountId: device.accountId, id: device.id });
      if (!answer) throw badPlayerKey(); // deleted in between
      // Revalidate every time (the body names signed addresses), but a match costs no body.
      sendRevalidated(req, res, answer);
    }),
  );

  router.post(
    '/player/:registrationKey/overrides/:overrideId/ack',
    smallJson,
    wrap(async (req, res) => {
      const device = await authenticatePlayer(rt, key(req));
      await charge('pings', device, 1);
      if (!rt.manifests?.acknowledgeOverride) throw new AppError('UNAVAILABLE', 'emergency overrides are not served by this deployment');
      const who = { accountId: device.accountId, id: device.id, name: device.name, groupId: device.groupId ?? null, tags: device.tags ?? [] };
      res.json(await rt.manifests.acknowledgeOverride(who, String(req.params.overrideId), req.body));
    }),
  );

  router.get(
    '/player/:registrationKey/datatables/:tableId/rows',
    wrap(async (req, res) => {
      const device = await authenticatePlayer(rt, key(req));
      if (!rt.dataTables || !rt.manifests) throw new AppError('UNAVAILABLE', 'data-table rows are not served to players by this deployment');
      const tableId = String(req.params.tableId).slice(0, 200);
      // A screen reads the tables its own manifest names (its templates' modules), no other table of
      // its account (issue 34, L4); the manifest is the one the screen fetches, so both agree.
      const manifest = await rt.manifests.manifest({ accountId: device.accountId, id: device.id });
      if (!manifest || !tablesNamedBy(manifest.body).has(tableId)) {
        throw new AppError('NOT_FOUND', 'no template of this screen shows that data table', { field: 'tableId' });
      }
      const answer = await rt.dataTables.rows({ accountId: device.accountId, id: device.id }, tableId);
      if (!answer) throw new AppError('NOT_FOUND', 'the account has no such data table', { field: 'tableId' });
      sendRevalidated(req, res, answer);
    }),
  );

  router.use('/player', (req: Request, res: Response) => {
    sendError(
      res,
      'NOT_FOUND',
      `the player API has no ${req.method} ${req.originalUrl
        .split('?')[0]!
        .replace(/\/player\/[^/]+/, '/player/{registrationKey}')
        .slice(0, 200)}`,
    );
  });

  router.use('/player', (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    if (isAppError(err) && err.code === 'UNAUTHENTICATED') {
      // A failed key counts against the address; the one that exhausts the budget is already a 429.
      void safely(() => failures.consume(addressOf(req)))
        .then((d) =>
          d.allowed
            ? sendError(res, err.code, err.message)
            : sendError(res, 'RATE_LIMITED', tooManyFailures(d.retryAfterSeconds).message, undefined, d.retryAfterSeconds),
        )
        .catch(next);
      return;
    }
    if (isAppError(err)) {
      if (err.code === 'RATE_LIMITED') return sendError(res, err.code, err.message, undefined, Number(err.details.retryAfter) || 1);
      if (err.code === 'UNAVAILABLE') {
        // The screen retries; the log says why (a backend's cause: a time limit, a connection, a status).
        rt.logger.warn({ err }, 'player API request unavailable');
        return sendError(res, err.code, err.message, undefined, Number(err.details.retryAfter) || 5);
      }
      if (err.code === 'INTERNAL') rt.logger.error({ err }, 'player API request failed');
      return sendError(res, err.code, err.message, typeof err.details.field === 'string' ? err.details.field : undefined);
    }
    const e = err as { type?: string; status?: number; body?: unknown };
    if (e?.type === 'entity.too.large') return sendError(res, 'PAYLOAD_TOO_LARGE', 'the request body is too large');
    if (e?.type === 'entity.parse.failed') return sendError(res, 'BAD_USER_INPUT', invalidJsonMessage(e.body));
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return sendError(res, 'BAD_USER_INPUT', 'malformed request');
    rt.logger.error({ err }, 'player API request failed');
    sendError(res, 'INTERNAL', 'internal error');
  });
  return router;
}

/** A JSON answer the player revalidates on every read: ETag, no-cache, and 304 without a body when it matches. */
function sendRevalidated(req: Request, res: Response, answer: { etag: string; body: unknown }): void {
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('ETag', answer.etag);
  const match = req.get('if-none-match');
  if (match && match.split(',').some((t) => t.trim().replace(/^W\//, '') === answer.etag)) {
    res.status(304).end();
    return;
  }
  res.json(answer.body);
}
