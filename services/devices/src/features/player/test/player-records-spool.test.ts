/**
 * Where a player's records may wait before they are acknowledged (settings.spoolHeldRecords,
 * PLAYER_RECORDS_SPOOL): with the spool (default) a refused stream still gives 202 once the batch is
 * fsynced to disk; without it (k8s/, where a pod's spool does not outlive the pod) the player gets
 * 503 and keeps its records, so an acknowledgement always means the stream holds them. Pings and
 * tracked events (fire and forget) keep the spool either way.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStream } from '@pylon/adapters/memory';
import { createFileSpool, TOPICS, type EventStream } from '@pylon/kit';
import { createDevice, startFixture, type Fixture } from '../../../../test/fixtures/subgraph.js';
import { servePlayer, type PlayerHttp } from '../../../../test/fixtures/player-http.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();
const BODIES: Record<string, unknown[]> = {
  playlogs: [{ timestamp: at(-60_000), file_id: 'file-a', duration: 10, type: 'video' }],
  events: [{ timestamp: at(-1000), event_name: 'tap' }],
  impressions: [{ timestamp: at(-1000), sensor: 'face', gender: 'female', age_range: 'AGE25TO34', dwell_time: 4.5, visitor_id: 'v1' }],
};
const TOPIC: Record<string, string> = { playlogs: TOPICS.plays, events: TOPICS.events, impressions: TOPICS.impressions };

/** The devices subgraph over a stream that refuses every publish (a broker outage), with a spool on disk. */
async function refusingStream(spoolHeldRecords: boolean) {
  const inner = createMemoryStream();
  const stream: EventStream = {
    ...inner,
    async publish() {
      throw new Error('broker unreachable');
    },
  };
  const dir = mkdtempSync(join(tmpdir(), 'pylon-held-spool-'));
  const f: Fixture = await startFixture({ stream, spool: createFileSpool(dir), start: NOW, settings: { spoolHeldRecords } });
  const player: PlayerHttp = await servePlayer(f.sg.runtime);
  const key = (await createDevice(f, { name: 'Lobby' })).registrationKey;
  const post = (kind: string) =>
    fetch(`${player.url}/player/${key}/${kind}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BODIES[kind]) });
  const spooled = (kind: string) => {
    const d = join(dir, TOPIC[kind]!);
    return existsSync(d) ? readdirSync(d).filter((n) => n.endsWith('.jsonl')).length : 0;
  };
  return {
    post,
    spooled,
    async close() {
      await player.close();
      await f.close();
      await inner.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test.each(Object.keys(BODIES))('%s: acknowledged from the spool by default (202, fsynced to disk)', async (kind) => {
  const s = await refusingStream(true);
  try {
    expect((await s.post(kind)).status).toBe(202);
    expect(s.spooled(kind)).toBe(1);
  } finally {
    await s.close();
  }
});

test.each(Object.keys(BODIES))('%s: without the spool for held records, 503 while the stream refuses, and nothing spooled', async (kind) => {
  const s = await refusingStream(false);
  try {
    const r = await s.post(kind);
    expect(r.status).toBe(503);
    expect(s.spooled(kind)).toBe(0);
  } finally {
    await s.close();
  }
});
