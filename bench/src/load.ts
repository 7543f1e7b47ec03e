import autocannon from 'autocannon';

export interface LoadResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Unmeasured warm-up before each load (0 in smoke mode: figures are not judged there). */
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? (process.env.BENCH_SMOKE === 'true' ? 0 : 2));

/** One bounded autocannon run against a loopback URL. */
export async function load(
  name: string,
  o: { url: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown; seconds: number; connections: number },
): Promise<LoadResult> {
  // A short unmeasured warm-up, so JIT and caches are warm for every path alike.
  if (WARMUP_SECONDS > 0)
    await autocannon({
      url: o.url,
      method: o.method ?? 'GET',
      headers: o.headers ?? {},
      ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
      connections: o.connections,
      duration: WARMUP_SECONDS,
      workers: 1,
    });
  const r = await autocannon({
    url: o.url,
    method: o.method ?? 'GET',
    headers: o.headers ?? {},
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
    connections: o.connections,
    duration: o.seconds,
    // The load generator runs on its own thread so it does not share the server's event loop.
    workers: 1,
  });
  return { name, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx + r.timeouts };
}

/** Checks a URL answers 2xx with the expected payload before it is loaded. */
export async function probe(url: string, init: RequestInit, check: (body: unknown) => boolean, what: string): Promise<void> {
  const res = await fetch(url, init);
  const body = await res.json().catch(() => null);
  if (!res.ok || !check(body)) throw new Error(`${what}: probe failed with ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
}

/** A scenario that answered nothing or answered with errors is broken, whatever its figures. */
export function brokenScenarios(rows: LoadResult[]): string[] {
  return rows.filter((r) => !(r.rps > 0) || r.errors > 0).map((r) => `${r.name}: ${r.rps.toFixed(0)} req/s, ${r.errors} errors`);
}

export function table(rows: LoadResult[]): string {
  const lines = ['| scenario | req/s | p50 ms | p99 ms | errors |', '|---|---:|---:|---:|---:|'];
  for (const r of rows) lines.push(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} |`);
  return lines.join('\n');
}
