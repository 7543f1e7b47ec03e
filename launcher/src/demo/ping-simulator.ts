/**
 * The demo's built-in player simulator (`npm start`, SIGNAGE_SIMULATOR=true by default): the demo
 * account's simulated screens (registration keys starting `sim-`) ping every few seconds through
 * the same use-case the player API runs, acknowledge the commands they receive and show a
 * screenshot, so a newcomer sees online devices, live ping data, command delivery and an alert
 * (the `sim-hot-` screen runs its CPU above the demo's 90 % rule). Screens without a `sim-` key
 * (the two seeded offline ones, and any device you register) are left alone.
 */
import { ackCommand, recordPing, storeSnap, type DevicesRuntime } from '@pylon/devices';
import type { Logger } from '@pylon/kit';

/** A 160x90 JPEG "frame of content" every simulated screen shows. */
export const DEMO_SNAP = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wCEAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk8BDg4OExETJhUVJk81LTVPT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT//AABEIAFoAoAMBEQACEQEDEQH/xAGiAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgsQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+gEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoLEQACAQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/AOVxXtHn3FxTC4YpjuLimFwxTHcXFMLi4phcMUx3FxTC4uKY7himFxcUwuLimO4YphcXFMLi4pjuGKYXFxTHcXFMLhimFytivLOa4YpjuLimFxcUwuGKY7i4phcXFMLhimO4uKYXFxQO4YphcXFMLi4pjuGKYXFxTHcMUwuLimFxcUx3DFMLi4phcrYryzmuGKY7i4phcXFMLhimO4uKYXFxTHcMUwuLimFxcUx3DFMLi4phcMUx3FxTC4uKY7himFxcUwuLimO4YphcXFA7lbFeYctwxTHcXFMLhimFxcUx3FxTC4YpjuLimFxcUBcMUx3FxTC4uKY7himFxcUwuLimO4YphcXFMLi4pjuGKYXFxTHcq4ryzluLimO4uKYXDFMdxcUwuLimFwxTHcXFMLi4phcMUx3FxTC4uKY7himFxcUwuGKY7i4phcXFMdwxTC4uKAuLimO5VxXmHNcXFMLi4phcMUx3FxTC4uKYXDFMdxcUBcXFMdwxTC4uKYXDFMdxcUwuLimO4YphcXFMLi4pjuGKYXFxTC4uKY7lXFeWc1xcUwuGKYXFxTHcXFMLhimO4uKYXFxTC4YpjuLimFxcUwuGKY7i4phcXFMdwxTC4uKYXFxTHcMUBcXFMdxcUwuVcV5hzXFxTC563XnnuhQAUAFABQAUAFABQAUAFABQAUAFABQAUAFAHnOqD/ia3n/Xd/8A0I17lH+HH0R5dT42VcVqTcrYryzmuLimFz1iuE98KACgAoAKACgAoAKACgAoAKACgAoAKACgAoA871Mf8TS7/wCu7/8AoRr26X8OPojyqnxv1K2K0IuVsV5hzXFxTC50H/CW6j/zxtf++W/+KrL2UTt+vVOyF/4S3UP+eNr/AN8t/wDFU/YxD69U7IP+Et1D/nja/wDfLf8AxVP2MQ+vVOyD/hLNQ/542v8A3y3/AMVR7CIfXanZC/8ACWah/wA8bX/vlv8A4qn7CIfXanZB/wAJZqH/ADxtv++W/wDiqPYRH9dqdkL/AMJXqH/PG2/75b/4qn9XiH12p2Qf8JXqH/PG2/75b/Gn9XgH12fZB/wleof88bb/AL5b/Gj6tAPrs+yF/wCEqv8A/njbf98t/jT+rQ7j+uT7IP8AhKr/AP5423/fLf40fVod2H1yfZC/8JTf/wDPG2/75b/Gn9Vh3YfXJ9kH/CU3/wDzxtv++W/xp/VYd2H1yfZB/wAJTf8A/PK2/wC+W/xo+qQ7sf1yfZC/8JRf/wDPK2/75b/Gn9Uh3YfXJ9kH/CUX/wDzytv++W/xo+qQ7sPrc+yMeeRp55JnADSMWIHTJOa64rlSSOeUuZtjMVQrlbFeWc1wxTC4uKY7i4phcMUx3FxTC4uKYXDFMdxcUwuLimFwxTHcXFMLi4pjuGKYXFxTC4uKY7himFxcUBcMUx3FxTC5VrzDnCmAtMBaYwpgLTGLTAKYC0xi0wCmAtMYtMApjFpgFMBaBi0wCmMWmB//2Q==',
  'base64',
);

export interface Simulator {
  /** One round of pings (the timer runs it every interval). */
  tick(): Promise<void>;
  close(): Promise<void>;
}

const jitter = (base: number, spread: number) => Math.round((base + (Math.random() - 0.5) * spread) * 10) / 10;

interface NowEntry {
  schedule_name?: string | null;
  content?: { type?: string; name?: string; sources?: { name?: string | null }[]; modules?: { name?: string; playlist?: { name?: string } | null }[] } | null;
}

/**
 * What a simulated screen says it plays, as a real player's ping does (the schedule's name and the
 * items on glass): read from its manifest, so /screens shows it (issue 35: every demo screen said
 * "now playing: -"). Nothing when the manifest is not there.
 */
async function playingNow(rt: DevicesRuntime, accountId: string, id: string): Promise<{ current_schedule?: string; meta?: Record<string, string> }> {
  const answer = await rt.manifests?.manifest({ accountId, id }).catch(() => null);
  const now = (answer?.body as { now?: NowEntry } | undefined)?.now;
  const c = now?.content;
  if (!now || !c) return {};
  const names =
    c.type === 'playlist'
      ? (c.sources ?? [])
          .map((x) => x.name)
          .filter(Boolean)
          .slice(0, 1)
      : (c.modules ?? []).map((m) => m.playlist?.name ?? m.name).filter(Boolean);
  return {
    ...(now.schedule_name ? { current_schedule: now.schedule_name.slice(0, 500) } : {}),
    meta: { playing: (names.length ? names.join(' | ') : (c.name ?? '')).slice(0, 1000) },
  };
}

export function startSimulator(rt: DevicesRuntime, o: { accountId: string; intervalSeconds: number; logger: Logger }): Simulator {
  const snapped = new Set<string>();
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    const devices = (await rt.repo.all(o.accountId, { byName: true })).filter((d) => d.registrationKey.startsWith('sim-'));
    for (const [i, d] of devices.entries()) {
      const hot = d.registrationKey.startsWith('sim-hot-');
      const result = await recordPing(rt, {
        registrationKey: d.registrationKey,
        body: {
          cpu_usage: hot ? jitter(95, 5) : jitter(25 + i * 5, 10),
          memory_usage: jitter(45 + i * 4, 8),
          disk_usage: jitter(40 + i * 3, 1),
          player_version: '4.2.0',
          os_version: i % 2 ? 'BrightSign OS 9.0' : 'Android 13',
          ip_address: `10.0.0.${10 + i}`,
          uptime: Math.round(process.uptime() * 1000),
          ...(await playingNow(rt, o.accountId, d.id)),
        },
        ip: '127.0.0.1',
      });
      for (const c of result.commands) {
        if (c.command === 'screenshot') await storeSnap(rt, d, DEMO_SNAP);
        await ackCommand(rt, d.registrationKey, c.id, { status: 'acknowledged' });
      }
      if (!snapped.has(d.id) && !d.snapUpdatedAt && rt.blobs) await storeSnap(rt, d, DEMO_SNAP);
      snapped.add(d.id);
    }
  };
  const run = () => {
    running = running.then(tick).catch((e: unknown) => o.logger.warn({ err: e }, 'demo simulator round failed; it tries again next round'));
    return running;
  };
  const timer = setInterval(run, o.intervalSeconds * 1000);
  timer.unref();
  void run();
  return {
    tick: run,
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
