/**
 * Compiled subgraph documents (graphql-jit) against graphql-js, request by request in one server
 * (issue 36, item 5): each request of a pair runs with compiled execution on (A) and off (B),
 * the order swapped every pair, so the machine's load hits both alike. Sequential requests from
 * this process: the 50-device list (GraphQL and REST), the player manifest (no GraphQL: the
 * control, whose ratio shows the noise) and the analytics series on the rollups; per path the
 * medians and B/A (above 1: compiled is faster).
 */
import { loadOperations } from '@pylon/kit';
import { setCompiledExecution } from '@pylon/kit/serving';

export interface CompiledRow {
  request: string;
  compiledP50: number;
  interpretedP50: number;
  ratio: number;
}

const ROLLUP = 'startDate: "2026-01-01", endDate: "2026-03-31"';
const TEN = JSON.stringify(Array.from({ length: 10 }, (_, i) => `d${i}`));
const ANALYTICS: [string, string][] = [
  ['playStatsByTime (DAY, 90 rows)', `{ playStatsByTime(${ROLLUP}, interval: DAY) { periodStart totalPlays totalDuration avgDuration } }`],
  [
    'deviceMetrics (DAY, 900 rows)',
    `{ deviceMetrics(${ROLLUP}, interval: DAY, deviceId: ${TEN}) { deviceId periodStart avgCpuUsage uptimePercentage alertCount } }`,
  ],
  [
    'audienceMetrics (DAY, 900 rows)',
    `{ audienceMetrics(${ROLLUP}, interval: DAY, deviceId: ${TEN}) { deviceId periodStart totalImpressions uniqueVisitors maleCount } }`,
  ],
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function compiledVsInterpreted(o: { baseUrl: string; key: string; manifestUrl: string; pairs: number; warmup: number }): Promise<CompiledRow[]> {
  const gqlHeaders = { 'content-type': 'application/json', 'x-service-apikey': o.key, 'apollo-require-preflight': 'true' };
  const graphql =
    (query: string, variables: Record<string, unknown> = {}) =>
    () =>
      fetch(`${o.baseUrl}/graphql`, { method: 'POST', headers: gqlHeaders, body: JSON.stringify({ query, variables }) });
  const requests: [string, () => Promise<Response>][] = [
    ['POST /graphql, 50-device list', graphql(loadOperations('rest').get('listDevices')!, { limit: 50, offset: 0 })],
    ['REST GET /devices?take=50', () => fetch(`${o.baseUrl}/devices?take=50&page=0`, { headers: { 'x-service-apikey': o.key } })],
    ['GET /player/{key}/manifest (control: no GraphQL)', () => fetch(o.manifestUrl)],
    ...ANALYTICS.map(([name, query]): [string, () => Promise<Response>] => [`POST /graphql, ${name}`, graphql(query)]),
  ];
  const timed = async (send: () => Promise<Response>, compiled: boolean) => {
    setCompiledExecution(compiled);
    const t = performance.now();
    const res = await send();
    const text = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200 || text.includes('"errors"')) throw new Error(`compiled A/B: ${res.status} ${text.slice(0, 300)}`);
    return ms;
  };
  const rows: CompiledRow[] = [];
  try {
    for (const [request, send] of requests) {
      for (let i = 0; i < o.warmup; i++) await timed(send, i % 2 === 0);
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < o.pairs; i++) {
        if (i % 2) {
          a.push(await timed(send, true));
          b.push(await timed(send, false));
        } else {
          b.push(await timed(send, false));
          a.push(await timed(send, true));
        }
      }
      rows.push({ request, compiledP50: median(a), interpretedP50: median(b), ratio: median(b) / median(a) });
    }
  } finally {
    setCompiledExecution(true);
  }
  return rows;
}

export function compiledTable(rows: CompiledRow[]): string {
  const lines = ['| request | compiled p50 ms | graphql-js p50 ms | graphql-js / compiled |', '|---|---:|---:|---:|'];
  for (const r of rows) lines.push(`| ${r.request} | ${r.compiledP50.toFixed(2)} | ${r.interpretedP50.toFixed(2)} | ${r.ratio.toFixed(2)} |`);
  return lines.join('\n');
}
