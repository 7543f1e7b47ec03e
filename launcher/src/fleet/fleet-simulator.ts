/**
 * A simulated fleet over HTTP: history (`days` back to now, through the ingestion API, with the
 * players' own timestamps) and, with `live`, real-time traffic (a ping per screen every
 * `pingSeconds`, and what each screen recorded since the last round). Used by `npm run simulate`
 * and by the demo in `npm start`.
 */
import type { Logger } from '@pylon/kit';
import { simulate, type LoopItem, type Screen } from './fleet-model.js';
import { FleetSender, type SendTally } from './fleet-sender.js';

export interface FleetScreen {
  registrationKey: string;
}

export interface FleetOptions {
  baseUrl: string;
  screens: FleetScreen[];
  days: number;
  live: boolean;
  pingSeconds?: number;
  /** Live rounds ping too (default true; the demo's own simulator pings its screens already). */
  pings?: boolean;
  /** What a screen with nothing scheduled plays (e.g. the account's media); default nothing. */
  fallbackLoop?: LoopItem[];
  batchSize?: number;
  now?: () => number;
  logger?: Pick<Logger, 'warn' | 'info'>;
  onProgress?: (t: SendTally, phase: { done: number; total: number }) => void;
}

export interface Fleet {
  /** Resolves once the history is sent and acknowledged (or refused), or stopped by close(). */
  history: Promise<SendTally>;
  tally: SendTally;
  close(): Promise<SendTally>;
}

interface ManifestPlaylist {
  id: string;
  sources?: { interval?: number | null; media?: { id: string; mime_type?: string | null; duration?: number | null } | null }[];
}

/** The screen's content loop from its manifest (what its schedules make it play now); empty when nothing is scheduled. */
export async function contentLoop(baseUrl: string, key: string): Promise<LoopItem[]> {
  const res = await fetch(`${baseUrl}/player/${key}/manifest`).catch(() => null);
  if (!res?.ok) return [];
  const m = (await res.json().catch(() => null)) as { now?: { schedule_id?: string | null; content?: { type: string } & Record<string, unknown> } } | null;
  const content = m?.now?.content;
  const playlists: ManifestPlaylist[] =
    content?.type === 'playlist'
      ? [content as unknown as ManifestPlaylist]
      : content?.type === 'template'
        ? ((content.modules as { playlist?: ManifestPlaylist | null }[] | undefined) ?? []).flatMap((mod) => (mod.playlist ? [mod.playlist] : []))
        : [];
  return playlists.flatMap((p) =>
    (p.sources ?? []).flatMap((s) =>
      s.media
        ? [
            {
              file_id: s.media.id,
              duration: s.interval ?? s.media.duration ?? 10,
              type: (s.media.mime_type ?? 'image/').split('/')[0] || 'image',
              playlist_id: p.id,
              schedule_id: m?.now?.schedule_id ?? null,
            },
          ]
        : [],
    ),
  );
}

const HOUR = 3_600_000;

export async function startFleet(o: FleetOptions): Promise<Fleet> {
  const now = o.now ?? Date.now;
  const screens: Screen[] = await Promise.all(
    o.screens.map(async (s, index) => {
      const loop = await contentLoop(o.baseUrl, s.registrationKey);
      return { key: s.registrationKey, index, loop: loop.length ? loop : (o.fallbackLoop ?? []), utcOffsetHours: [0, 1, -5, 2][index % 4]! };
    }),
  );
  const sender = new FleetSender({ baseUrl: o.baseUrl, batchSize: o.batchSize ?? 100, onProgress: (t) => o.onProgress?.(t, progress) });
  const progress = { done: 0, total: 0 };
  const start = now();
  // History hour by hour (all screens per hour), so memory stays small for long periods.
  const from = start - o.days * 24 * HOUR;
  progress.total = Math.ceil((start - from) / HOUR) * screens.length;
  let stopped = false;
  const history = (async () => {
    for (let t = from; t < start && !stopped; t += HOUR) {
      for (const s of screens) {
        await sender.send(s.key, simulate(s, t, Math.min(t + HOUR, start)));
        progress.done++;
      }
    }
    await sender.drain();
    return sender.tally;
  })();

  let timer: NodeJS.Timeout | undefined;
  let last = start;
  let round: Promise<void> = Promise.resolve();
  if (o.live) {
    const tick = async () => {
      const t = now();
      for (const [i, s] of screens.entries()) {
        if (o.pings !== false)
          await sender.ping(s.key, {
            cpu_usage: 20 + ((i * 7 + t / 60_000) % 30),
            memory_usage: 40 + (i % 5) * 5,
            disk_usage: 35 + i,
            player_version: '4.2.0',
          });
        await sender.send(s.key, simulate(s, last, t));
      }
      last = t;
    };
    timer = setInterval(
      () => {
        round = round.then(tick).catch((e: unknown) => o.logger?.warn({ err: e }, 'fleet simulator round failed; it tries again next round'));
      },
      (o.pingSeconds ?? 15) * 1000,
    );
    timer.unref();
  }
  return {
    history,
    tally: sender.tally,
    async close() {
      stopped = true;
      if (timer) clearInterval(timer);
      // Requests waiting on a Retry-After (the per-screen limits) answer now: a stop fits its 15 s.
      sender.stop();
      await history.catch(() => undefined);
      await round;
      await sender.drain();
      return sender.tally;
    },
  };
}
