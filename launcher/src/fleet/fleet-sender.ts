/**
 * Sends simulated records through the real player API (POST /player/{key}/playlogs, /events,
 * /impressions, /ping) in batches, a few requests in flight, and counts what was sent and what was
 * acknowledged (202). A 429 or 503 is retried after its Retry-After (a few times); anything else is
 * counted as refused with its status.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Records } from './fleet-model.js';

export type Kind = keyof Records | 'pings';

export interface SendTally {
  sent: Record<Kind, number>;
  acknowledged: Record<Kind, number>;
  /** Records refused, by HTTP status (0: no answer). */
  refused: Record<string, number>;
  requests: number;
}

export const emptyTally = (): SendTally => ({
  sent: { playlogs: 0, impressions: 0, events: 0, pings: 0 },
  acknowledged: { playlogs: 0, impressions: 0, events: 0, pings: 0 },
  refused: {},
  requests: 0,
});

export interface SenderOptions {
  baseUrl: string;
  /** Records per request (at most the API's 1000). Default 100. */
  batchSize?: number;
  /** Requests in flight. Default 8. */
  concurrency?: number;
  onProgress?: (t: SendTally) => void;
}

/** Waits `ms`, or less once `signal` aborts (its listener removed either way: one signal serves every retry). */
const sleep = (ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined);

export class FleetSender {
  readonly tally = emptyTally();
  private inFlight = new Set<Promise<void>>();
  /** Aborted by stop(): no more retries after a 429/503 (a stopping server must not wait on Retry-After). */
  private stopping = new AbortController();

  constructor(private readonly o: SenderOptions) {}

  /** Queues every record of `records` for `key`; resolves when they are all in flight (back-pressure by concurrency). */
  async send(key: string, records: Partial<Records>): Promise<void> {
    const size = Math.min(1000, this.o.batchSize ?? 100);
    for (const kind of ['playlogs', 'impressions', 'events'] as const) {
      const list = records[kind] ?? [];
      for (let i = 0; i < list.length; i += size) await this.enqueue(() => this.post(key, kind, list.slice(i, i + size)));
    }
  }

  async ping(key: string, body: Record<string, unknown>): Promise<void> {
    await this.enqueue(async () => {
      this.tally.sent.pings++;
      const status = await this.request(`/player/${key}/ping`, body);
      if (status === 200) this.tally.acknowledged.pings++;
      else this.refuse(status, 1);
    });
  }

  /** Ends the waits for Retry-After: requests in flight answer their last status instead of retrying. */
  stop(): void {
    this.stopping.abort();
  }

  /** Waits for every request in flight. */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  private async enqueue(job: () => Promise<void>): Promise<void> {
    while (this.inFlight.size >= (this.o.concurrency ?? 8)) await Promise.race([...this.inFlight]);
    const p: Promise<void> = job().finally(() => {
      this.inFlight.delete(p);
      this.o.onProgress?.(this.tally);
    });
    this.inFlight.add(p);
  }

  private async post(key: string, kind: keyof Records, batch: unknown[]): Promise<void> {
    this.tally.sent[kind] += batch.length;
    const status = await this.request(`/player/${key}/${kind}`, batch);
    if (status === 202) this.tally.acknowledged[kind] += batch.length;
    else this.refuse(status, batch.length);
  }

  private refuse(status: number, n: number): void {
    this.tally.refused[String(status)] = (this.tally.refused[String(status)] ?? 0) + n;
  }

  /** POSTs, retrying 429/503 after Retry-After (at most 5 times); answers the final status (0: no answer). */
  private async request(path: string, body: unknown): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      this.tally.requests++;
      const res = await fetch(`${this.o.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      }).catch(() => null);
      if (res) await res.arrayBuffer().catch(() => undefined);
      const status = res?.status ?? 0;
      if ((status === 429 || status === 503 || status === 0) && attempt < 5 && !this.stopping.signal.aborted) {
        const after = Number(res?.headers.get('retry-after')) || 1;
        await sleep(Math.min(after, 10) * 1000, this.stopping.signal);
        if (this.stopping.signal.aborted) return status;
        continue;
      }
      return status;
    }
  }
}
