/**
 * `npm run simulate -- --devices N --days D [--live]`: a fleet of simulated screens sending
 * realistic history (D days back) and, with --live, real-time traffic through the real HTTP player
 * API of a running server, with a progress bar and a summary of what was sent and acknowledged.
 *
 *   --url U        the server (default http://localhost:$PORT, PORT default 4000)
 *   --key K        an API key with Devices_Edit (default $SIGNAGE_API_KEY, else $SIGNAGE_BOOTSTRAP_API_KEY):
 *                  the screens "Simulated screen 1..N" are created when missing (their keys are kept)
 *   --batch B      records per request (default 100)
 *   --ping S       seconds between live rounds (default 15)
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfigOrExit } from '@pylon/kit';
import { startFleet } from './fleet-simulator.js';
import type { SendTally } from './fleet-sender.js';

const USAGE = 'usage: npm run simulate -- --devices N --days D [--live] [--url U] [--key K] [--batch B] [--ping S]';
const env = loadConfigOrExit(
  z.object({
    PORT: z.coerce.number().int().min(1).max(65535).default(4000),
    SIGNAGE_API_KEY: z.string().min(1).optional(),
    SIGNAGE_BOOTSTRAP_API_KEY: z.string().min(1).optional(),
  }),
);

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      devices: { type: 'string', default: '10' },
      days: { type: 'string', default: '7' },
      live: { type: 'boolean', default: false },
      url: { type: 'string' },
      key: { type: 'string' },
      batch: { type: 'string', default: '100' },
      ping: { type: 'string', default: '15' },
    },
    strict: true,
  }).values;
} catch (e) {
  fail((e as Error).message);
}
const int = (name: string, v: string, min: number, max: number) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
};
const devices = int('devices', args.devices, 1, 10_000);
const days = int('days', args.days, 0, 89);
const batch = int('batch', args.batch, 1, 1000);
const pingSeconds = int('ping', args.ping, 1, 3600);
const baseUrl = (args.url ?? `http://localhost:${env.PORT}`).replace(/\/$/, '');
const key = args.key ?? env.SIGNAGE_API_KEY ?? env.SIGNAGE_BOOTSTRAP_API_KEY;
if (!key) fail('an API key is needed: --key, SIGNAGE_API_KEY or SIGNAGE_BOOTSTRAP_API_KEY');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of several shapes, read field by field
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'x-service-apikey': key!, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  }).catch((e: unknown) => fail(`cannot reach ${baseUrl}: ${(e as Error).message}`));
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** The simulated screens 1..N: existing ones reused (by name), missing ones created. */
async function provision(): Promise<{ registrationKey: string }[]> {
  const list = await api('GET', '/devices?take=1000');
  if (list.status !== 200) fail(`listing devices failed with ${list.status}: ${JSON.stringify(list.body?.error ?? list.body)}`);
  const byName = new Map<string, string>(
    (list.body as { name: string; registration_key: string | null }[]).filter((d) => d.registration_key).map((d) => [d.name, d.registration_key!]),
  );
  const out: { registrationKey: string }[] = [];
  for (let i = 1; i <= devices; i++) {
    const name = `Simulated screen ${i}`;
    let k = byName.get(name);
    if (!k) {
      const created = await api('POST', '/devices', { name, registration_key: `sim-fleet-${randomBytes(16).toString('hex')}` });
      if (created.status !== 201) fail(`creating ${name} failed with ${created.status}: ${JSON.stringify(created.body?.error ?? created.body)}`);
      k = created.body.registration_key as string;
    }
    out.push({ registrationKey: k });
  }
  return out;
}

const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
function bar(t: SendTally, p: { done: number; total: number }, started: number): void {
  const share = p.total ? p.done / p.total : 1;
  const width = 30;
  const filled = Math.round(share * width);
  const secs = (Date.now() - started) / 1000;
  const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}%  ${total(t.acknowledged).toLocaleString('en')} acknowledged  ${Math.round(total(t.acknowledged) / Math.max(secs, 0.001)).toLocaleString('en')}/s`;
  if (process.stderr.isTTY) process.stderr.write(`\r${line}`);
}
function summary(t: SendTally, started: number): string {
  const secs = (Date.now() - started) / 1000;
  const rows = (['playlogs', 'impressions', 'events', 'pings'] as const).map(
    (k) => `  ${k.padEnd(12)} ${String(t.sent[k]).padStart(10)} ${String(t.acknowledged[k]).padStart(13)}`,
  );
  const refused = Object.entries(t.refused).map(([s, n]) => `${n} refused with ${s === '0' ? 'no answer' : `HTTP ${s}`}`);
  return [
    '',
    `  ${'record'.padEnd(12)} ${'sent'.padStart(10)} ${'acknowledged'.padStart(13)}`,
    ...rows,
    `  ${'total'.padEnd(12)} ${String(total(t.sent)).padStart(10)} ${String(total(t.acknowledged)).padStart(13)}`,
    `  ${t.requests} requests in ${secs.toFixed(1)} s (${Math.round(total(t.acknowledged) / Math.max(secs, 0.001))} records/s)${refused.length ? `; ${refused.join(', ')}` : ''}`,
    '',
  ].join('\n');
}

/** What screens with nothing scheduled play: the account's first media files, 10 s each. */
async function fallbackLoop(): Promise<{ file_id: string; duration: number; type: string }[]> {
  const media = await api('GET', '/media?take=20');
  if (media.status !== 200 || !Array.isArray(media.body)) return [];
  return (media.body as { id: string; mime_type?: string | null }[]).map((m) => ({
    file_id: m.id,
    duration: 10,
    type: String(m.mime_type ?? 'image').split('/')[0] || 'image',
  }));
}

const started = Date.now();
const screens = await provision();
const fallback = await fallbackLoop();
process.stderr.write(`simulating ${screens.length} screens, ${days} days of history${args.live ? ', then live (Ctrl-C stops)' : ''} against ${baseUrl}\n`);
const fleet = await startFleet({
  baseUrl,
  screens,
  days,
  live: args.live,
  pingSeconds,
  batchSize: batch,
  fallbackLoop: fallback,
  onProgress: (t, p) => bar(t, p, started),
});
const history = await fleet.history;
process.stderr.write('\n');
process.stdout.write(`history sent:${summary(history, started)}`);
if (args.live) {
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  const t = await fleet.close();
  process.stdout.write(`\nstopped; everything sent:${summary(t, started)}`);
} else {
  await fleet.close();
}
const final = fleet.tally;
process.exit(total(final.sent) === total(final.acknowledged) ? 0 : 1);
