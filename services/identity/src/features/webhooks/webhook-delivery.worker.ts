/**
 * The webhook delivery worker (its own role; in-process in `npm start`):
 *
 *   push.events ──(group "webhooks")──> fan-out: one delivery per matching enabled endpoint (id =
 *   event.endpoint, so a redelivered stream message queues nothing twice) ──> attempt loop:
 *   due deliveries (an index walk over dueAt), oldest event first, per endpoint in windows of
 *   `endpointConcurrency`, under leases taken a few windows ahead in one write; successes settle
 *   in the background while the next window goes out.
 *
 * Invariants:
 * - At least once: a delivery is queued before the stream message counts as consumed; a worker
 *   killed mid-attempt leaves a lease that runs out ((LEASE_CHUNK + 1) x the timeout + 5 s), and
 *   another worker (or it, restarted) tries again; a success whose settle was not yet committed
 *   is attempted again (a repeat, never a loss).
 * - Two workers never make the same attempt: the lease is taken with the version read (documents
 *   port optimistic concurrency); the loser skips it.
 * - Per-endpoint order by event time where possible: attempts start in event order, at most
 *   `endpointConcurrency` in flight per endpoint (1: strictly one after the other), and a failing
 *   delivery holds back the endpoint's later ones for the rest of that round.
 * - Redirects are not followed (a 3xx is a failure); addresses pass the kit's outbound rules.
 */
import http from 'node:http';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import {
  deviceOf,
  isRefusedAddress,
  outboundAgents,
  PUSH_EVENTS_TOPIC,
  type EventStream,
  type Logger,
  type PushEvent,
  type PushEvents,
  type Subscription,
} from '@pylon/kit';
import { deliveryOf } from './manage-webhooks.js';
import { DEFAULT_RETRY_POLICY, retryDelay, type RetryPolicy } from './webhook-retry-policy.js';
import { webhookHeaders } from './webhook-signing.js';
import type { WebhookDelivery, WebhookEndpoint, WebhookRepository } from './webhook.repository.js';

export const WEBHOOK_CONSUMER_GROUP = 'webhooks';
const EXCERPT = 500;

export interface DeliveryWorkerDeps {
  stream: EventStream;
  repo: WebhookRepository;
  logger: Logger;
  /** Addresses deliveries may reach although private/loopback (WEBHOOK_ALLOW_LIST; tests' loopback receiver). */
  allowList: readonly string[];
  policy?: Partial<RetryPolicy>;
  /** How often due retries are looked for. Default 1 s (fresh events are attempted at once). */
  pollMs?: number;
  /** Where webhook_endpoint.disabled goes. */
  pushEvents?: PushEvents;
  now?: () => number;
  /** This worker's name in leases. */
  owner?: string;
  /** Attempts in flight per endpoint (WEBHOOK_ENDPOINT_CONCURRENCY). Default 8; 1 keeps strict order. */
  endpointConcurrency?: number;
}

export interface DeliveryWorker {
  /** One round over the due deliveries of every account (the timer runs it). */
  round(): Promise<number>;
  alive(): boolean;
  close(): Promise<void>;
}

/** Whether the endpoint wants the event (type and device filters). */
export function matches(endpoint: Pick<WebhookEndpoint, 'eventTypes' | 'deviceIds' | 'deviceGroupId' | 'tag'>, event: PushEvent): boolean {
  if (endpoint.eventTypes.length && !endpoint.eventTypes.includes(event.type)) return false;
  const filtered = endpoint.deviceIds.length > 0 || endpoint.deviceGroupId !== null || endpoint.tag !== null;
  if (!filtered) return true;
  const d = deviceOf(event);
  if (!d) return false;
  if (endpoint.deviceIds.length && !endpoint.deviceIds.includes(d.device_id)) return false;
  if (endpoint.deviceGroupId !== null && d.device_group_id !== endpoint.deviceGroupId) return false;
  if (endpoint.tag !== null && !(d.device_tags ?? []).includes(endpoint.tag)) return false;
  return true;
}

interface Outcome {
  statusCode: number | null;
  excerpt: string | null;
  ok: boolean;
}

/** Leases are taken this many windows of `endpointConcurrency` ahead, in one write. */
const LEASE_CHUNK = 4;

export async function startDeliveryWorker(deps: DeliveryWorkerDeps): Promise<DeliveryWorker> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...deps.policy };
  const now = deps.now ?? Date.now;
  const owner = deps.owner ?? `worker-${randomUUID()}`;
  const concurrency = Math.max(1, deps.endpointConcurrency ?? 8);
  const agents = outboundAgents(deps.allowList, { keepAlive: true });
  let closed = false;
  let running: Promise<number> | null = null;
  let again = false;

  function post(url: string, body: string, headers: Record<string, string>): Promise<Outcome> {
    return new Promise((resolve) => {
      const u = new URL(url);
      const lib = u.protocol === 'https:' ? https : http;
      const req = lib.request(
        u,
        {
          method: 'POST',
          agent: u.protocol === 'https:' ? agents.https : agents.http,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'pylon-webhooks/1' },
          timeout: policy.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < EXCERPT) chunks.push(c);
            size += c.length;
          });
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            resolve({ statusCode: status, excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT), ok: status >= 200 && status < 300 });
          });
          res.on('error', (e) => resolve({ statusCode: status(res), excerpt: e.message.slice(0, EXCERPT), ok: false }));
        },
      );
      const status = (r: http.IncomingMessage) => r.statusCode ?? null;
      const timer = setTimeout(() => req.destroy(new Error(`no answer within ${policy.timeoutMs} ms`)), policy.timeoutMs);
      req.on('close', () => clearTimeout(timer));
      req.on('error', (e) =>
        resolve({
          statusCode: null,
          excerpt: isRefusedAddress(e) ? 'the address is not public (refused before connecting)' : e.message.slice(0, EXCERPT),
          ok: false,
        }),
      );
      req.end(body);
    });
  }

  /**
   * One attempt of a delivery this worker leased. A success is settled in the background (pushed
   * onto `settling`, awaited at the end of the endpoint's round): the next window's attempts need
   * only the HTTP outcome, not the commit. A crash before that commit means one more attempt
   * (at least once), never a loss.
   */
  async function attempt(tenant: string, endpoint: WebhookEndpoint, leased: WebhookDelivery, settling: Promise<unknown>[]): Promise<boolean> {
    const d = leased;
    const startedAt = now();
    const body = JSON.stringify(d.event);
    const t = performance.now();
    const out = await post(endpoint.url, body, webhookHeaders(endpoint.secrets, d.eventId, body, now()));
    const latencyMs = Math.round(performance.now() - t);
    const attempts = [...d.attempts, { at: new Date(startedAt).toISOString(), statusCode: out.statusCode, latencyMs, responseExcerpt: out.excerpt }].slice(-50);
    if (out.ok) {
      settling.push(deps.repo.settleAttempt(tenant, leased, { status: 'SUCCEEDED', attempts, nextAttemptAt: null }));
      if (endpoint.consecutiveFailures > 0 || endpoint.failingSince)
        await deps.repo.changeEndpoint(tenant, endpoint.id, { consecutiveFailures: 0, failingSince: null });
      return true;
    }
    const dead = attempts.length >= policy.maxAttempts;
    await deps.repo.settleAttempt(tenant, leased, {
      status: dead ? 'DEAD' : 'FAILED',
      attempts,
      nextAttemptAt: dead ? null : new Date(now() + retryDelay(policy, attempts.length)).toISOString(),
    });
    const failingSince = endpoint.failingSince ?? new Date(startedAt).toISOString();
    const disable = now() - Date.parse(failingSince) >= policy.disableAfterMs;
    const reason = `every delivery failed since ${failingSince}`;
    await deps.repo.changeEndpoint(tenant, endpoint.id, {
      consecutiveFailures: endpoint.consecutiveFailures + 1,
      failingSince,
      ...(disable ? { enabled: false, disabledReason: reason } : {}),
    });
    if (disable) {
      deps.logger.warn({ accountId: tenant, endpointId: endpoint.id }, 'webhook endpoint disabled after persistent failure');
      deps.pushEvents?.emit(tenant, 'webhook_endpoint.disabled', { webhook_endpoint_id: endpoint.id, reason });
    }
    return false;
  }

  async function roundOnce(): Promise<number> {
    let attempted = 0;
    const nowIso = () => new Date(now()).toISOString();
    // Accounts side by side (the store commits concurrent writes together); endpoints likewise below.
    await Promise.all((await deps.repo.accountIds()).map((tenant) => roundOf(tenant)));
    return attempted;

    async function roundOf(tenant: string): Promise<void> {
      const due = await deps.repo.due(tenant, nowIso(), 500);
      if (!due.length) return;
      const byEndpoint = new Map<string, WebhookDelivery[]>();
      for (const d of due) byEndpoint.set(d.endpointId, [...(byEndpoint.get(d.endpointId) ?? []), d]);
      await Promise.all(
        [...byEndpoint].map(async ([endpointId, list]) => {
          let endpoint = await deps.repo.findEndpoint(tenant, endpointId);
          const settling: Promise<unknown>[] = [];
          try {
            // Chunks of LEASE_CHUNK windows, leased in one go (one commit for the chunk); then windows
            // of `concurrency` attempts in event order; a failure stops the endpoint's round and
            // gives back the chunk's unused leases.
            for (let i = 0; i < list.length; i += concurrency * LEASE_CHUNK) {
              if (!endpoint) return;
              const current = endpoint;
              const chunk = list.slice(i, i + concurrency * LEASE_CHUNK).filter((d) => current.enabled || d.eventType === 'webhook.test');
              if (chunk.length === 0) return;
              const until = new Date(now() + (LEASE_CHUNK + 1) * policy.timeoutMs + 5_000).toISOString();
              // A delivery another worker holds is skipped (null).
              const leased = (await Promise.all(chunk.map((d) => deps.repo.lease(tenant, d, owner, until)))).filter((d): d is WebhookDelivery => d !== null);
              for (let j = 0; j < leased.length; j += concurrency) {
                const window = leased.slice(j, j + concurrency);
                attempted += window.length;
                const ok = await Promise.all(window.map((d) => attempt(tenant, current, d, settling)));
                if (ok.includes(false)) {
                  await Promise.all(leased.slice(j + concurrency).map((d) => deps.repo.release(tenant, d)));
                  return;
                }
              }
              // Its failure count or secrets may have changed meanwhile.
              if (current.consecutiveFailures > 0 || i + concurrency * LEASE_CHUNK < list.length)
                endpoint = (await deps.repo.findEndpoint(tenant, endpointId)) ?? current;
            }
          } finally {
            await Promise.all(settling);
          }
        }),
      );
    }
  }

  /** Runs a round now, or once more after the one running (fresh events never wait for the timer). */
  function round(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = roundOnce()
      .catch((e: unknown) => {
        deps.logger.error({ err: e }, 'webhook delivery round failed; it runs again');
        return 0;
      })
      .then((n) => {
        // A full round may have left more due: go on at once.
        if (n > 0) again = true;
        return n;
      })
      .finally(() => {
        running = null;
        if (again && !closed) {
          again = false;
          void round();
        }
      });
    return running;
  }

  for (const tenant of await deps.repo.accountIds()) await deps.repo.backfillDue(tenant);
  // Endpoints per account, read once per batch.
  const subscription: Subscription = await deps.stream.subscribe(
    PUSH_EVENTS_TOPIC,
    { group: WEBHOOK_CONSUMER_GROUP, maxBatchSize: 500, maxWaitMs: 10 },
    async (batch) => {
      const endpoints = new Map<string, WebhookEndpoint[]>();
      const queued: Promise<unknown>[] = [];
      const nowIso = new Date(now()).toISOString();
      for (const m of batch) {
        const event = m.value as PushEvent;
        if (!event || typeof event.account_id !== 'string' || event.type === 'webhook.test') continue;
        let list = endpoints.get(event.account_id);
        if (!list) endpoints.set(event.account_id, (list = await deps.repo.enabledEndpoints(event.account_id)));
        for (const e of list) if (matches(e, event)) queued.push(deps.repo.queue(event.account_id, deliveryOf(e.id, event, nowIso)));
      }
      // Queued together (the store commits concurrent writes as one); consumed only once all are stored.
      await Promise.all(queued);
      void round();
    },
  );
  const timer = setInterval(() => void round(), deps.pollMs ?? 1000);
  timer.unref();
  return {
    round,
    alive: () => subscription.alive(),
    async close() {
      closed = true;
      clearInterval(timer);
      await subscription.close();
      await running;
      agents.destroy();
    },
  };
}
