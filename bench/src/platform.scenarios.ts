/**
 * Scenario 1 (platform): the same 50-device list four ways, in interleaved rounds (issue 39.1 and 39.6).
 *
 * - **floor**: a bare `node:http` handler in the same process that reads the same 50 devices (and their
 *   count) through the same repository on the same store and writes the same JSON the gateway sends
 *   (each device projected onto the gateway answer's fields). No authentication, no GraphQL: the
 *   physical floor of this request in Node on this store.
 * - **gateway** `/graphql` with the API key, **REST** `GET /devices?take=50`, and the **devices subgraph
 *   served alone** (signed internal token), a second line.
 *
 * Each round loads the four in turn (A, B, C, D, A, B, ...); a ratio is computed per round and printed
 * as the median with its spread (lowest to highest round). A target counts as met when the spread's low
 * end meets it: one 10 s load per side cannot tell a regression from the machine's noise.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeviceRepository } from '@pylon/devices';
import { load, table, type LoadResult } from './load.js';

export interface Ratio {
  name: string;
  median: number;
  low: number;
  high: number;
  target: number;
}

export interface PlatformResult {
  /** Per side, the round with the median req/s (what the history file keeps). */
  loads: LoadResult[];
  ratios: Ratio[];
  /** Bytes of one answer, floor and gateway: the floor must write what the gateway writes. */
  bytes: { floor: number; gateway: number };
}

interface Side {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: unknown;
}

/** `doc` cut to the keys (and nested keys) of `shape`, in its order; what the store lacks is null. */
function project(doc: unknown, shape: unknown): unknown {
  if (Array.isArray(shape)) return Array.isArray(doc) ? doc.map((d) => project(d, shape[0])) : null;
  if (shape === null || typeof shape !== 'object') return doc ?? null;
  if (doc === null || typeof doc !== 'object') return null;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(shape)) out[k] = project((doc as Record<string, unknown>)[k], (shape as Record<string, unknown>)[k]);
  return out;
}

/**
 * The floor server: per request, `repo.list` and `repo.count` for the account (ordered by name, then id,
 * as the persisted document asks), projected onto `shape` (one device of the gateway's answer).
 */
export async function startFloor(repo: DeviceRepository, accountId: string, shape: unknown): Promise<{ url: string; server: Server }> {
  const cutoff = () => new Date(Date.now() - 300_000).toISOString();
  const query = { limit: 50, offset: 0, order: [{ name: 'ASC' as const }, { id: 'ASC' as const }] };
  const server = createServer((req, res) => {
    req.resume();
    Promise.all([repo.list(accountId, query, cutoff), repo.count(accountId, query, cutoff)]).then(
      ([devices, total]) => {
        const body = JSON.stringify({ data: { device: devices.map((d) => project(d, shape)), total } });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
      },
      (e: unknown) => res.writeHead(500).end(String(e)),
    );
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function platformScenario(o: {
  floor: Side;
  gateway: Side;
  rest: Side;
  direct: Side;
  rounds: number;
  seconds: number;
  connections: number;
}): Promise<PlatformResult> {
  const sides = [o.floor, o.gateway, o.rest, o.direct];
  const byRound: LoadResult[][] = [];
  for (let r = 0; r < o.rounds; r++) {
    const round: LoadResult[] = [];
    for (const s of sides) round.push(await load(s.name, { ...s, seconds: o.seconds, connections: o.connections }));
    byRound.push(round);
  }
  const rps = (i: number) => byRound.map((round) => round[i]!.rps);
  const ratio = (name: string, a: number, b: number, target: number): Ratio => {
    const per = byRound.map((round) => round[a]!.rps / round[b]!.rps);
    return { name, median: median(per), low: Math.min(...per), high: Math.max(...per), target };
  };
  const loads = sides.map((_, i) => {
    const m = median(rps(i));
    return byRound.find((round) => round[i]!.rps === m)![i]!;
  });
  const size = async (s: Side) =>
    (await (await fetch(s.url, { method: s.method ?? 'GET', headers: s.headers ?? {}, ...(s.body ? { body: JSON.stringify(s.body) } : {}) })).arrayBuffer())
      .byteLength;
  return {
    loads,
    ratios: [ratio('gateway / floor', 1, 0, 0.5), ratio('REST / GraphQL (gateway)', 2, 1, 0.9), ratio('gateway / devices subgraph alone', 1, 3, 0.5)],
    bytes: { floor: await size(o.floor), gateway: await size(o.gateway) },
  };
}

export function printPlatform(r: PlatformResult, rounds: number): void {
  console.log(`Scenario 1: the same 50-device list (${rounds} interleaved rounds; the round with the median req/s per side)\n`);
  console.log(table(r.loads));
  console.log(`\none answer: floor ${r.bytes.floor} bytes, gateway ${r.bytes.gateway} bytes`);
  for (const x of r.ratios) {
    const met = x.low >= x.target ? 'met' : x.median >= x.target ? 'median meets it, the low end does not' : 'not met';
    console.log(`${x.name}: ${x.median.toFixed(2)}× (rounds ${x.low.toFixed(2)}-${x.high.toFixed(2)}; target ≥ ${x.target.toFixed(2)}×: ${met})`);
  }
}
