/** `npm run bench`'s machine-readable result (bench/src/results.ts): written beside the dated runs, and the next run prints its deltas. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deltaLines, previousResult, speedDeltaLines, startDeltaLines, writeResult, type BenchResult } from '../../bench/src/results.js';
import { machineSpeed } from '../../bench/src/machine-speed.js';

const load = (name: string, rps: number) => ({ name, rps, p50: 1, p99: 2, errors: 0 });
const result = (date: string, loads: BenchResult['loads']): BenchResult => ({ date, machine: '2 × cpu, 24 GiB', node: '20.20.2', loads });

test('the next run finds the newest earlier result and prints each load against it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-history-'));
  try {
    expect(previousResult(dir)).toBeUndefined();
    writeResult(dir, result('2026-11-25T13:10:00.000Z', [load('gateway', 500)]));
    const newest = writeResult(dir, result('2026-11-26T09:00:00.000Z', [load('gateway', 600), load('REST', 550)]));
    expect(newest).toBe(join(dir, '2026-11-26T09-00-00.000Z.json'));
    expect(JSON.parse(readFileSync(newest, 'utf8'))).toMatchObject({
      date: '2026-11-26T09:00:00.000Z',
      loads: [{ name: 'gateway', rps: 600 }, { name: 'REST' }],
    });
    const previous = previousResult(dir)!;
    expect(previous.date).toBe('2026-11-26T09:00:00.000Z');
    const lines = deltaLines(previous, result('2026-11-27T09:00:00.000Z', [load('gateway', 540), load('REST', 605), load('ping', 10)]));
    expect(lines).toEqual([
      'gateway      540 req/s  -10.0 % (was 600 req/s)',
      'REST         605 req/s  +10.0 % (was 550 req/s)',
      'ping          10 req/s  new',
    ]);
    expect(deltaLines(undefined, result('x', [load('gateway', 1)]))).toEqual(['gateway        1 req/s  new']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('starts are compared by process: the milliseconds to ready and their change, or "new"', () => {
  const previous = { ...result('a', []), starts: [{ name: 'all-in-one', distMs: 2100 }] };
  const current = {
    ...result('b', []),
    starts: [
      { name: 'all-in-one', distMs: 1800.4 },
      { name: 'datatables subgraph', distMs: 700 },
    ],
  };
  expect(startDeltaLines(previous, current)).toEqual(['start: all-in-one  1800 ms  -300 ms (was 2100 ms)', 'start: datatables subgraph  700 ms  new']);
  expect(startDeltaLines(result('c', []), result('d', []))).toEqual([]);
});

test("the machine's speed is measured by its fixed probes and compared with the last run's start", () => {
  const speed = machineSpeed(1);
  expect(speed.sha512MBs).toBeGreaterThan(0);
  expect(speed.jsonRoundTripsPerSecond).toBeGreaterThan(0);
  expect(Number.isInteger(speed.sha512MBs) && Number.isInteger(speed.jsonRoundTripsPerSecond)).toBe(true);

  const at = (sha512MBs: number, jsonRoundTripsPerSecond: number) => ({ sha512MBs, jsonRoundTripsPerSecond });
  const previous = { ...result('a', []), speed: { start: at(880, 2000), end: at(870, 1900) } };
  const current = { ...result('b', []), speed: { start: at(616, 2100), end: at(700, 2000) } };
  expect(speedDeltaLines(previous, current)).toEqual([
    'machine speed at the start  SHA-512 616 MB/s -30.0 % (was 880), JSON 2100 round trips/s +5.0 % (was 2000)',
  ]);
  // A previous run from before the probes: "new"; a run without them: nothing.
  expect(speedDeltaLines(result('a', []), current)).toEqual([
    'machine speed at the start  SHA-512 616 MB/s, JSON 2100 round trips/s (a 50-device answer)  new',
  ]);
  expect(speedDeltaLines(previous, result('b', []))).toEqual([]);
});

test('a result file is written as the formatter writes it, so a full run commits without a format pass', async () => {
  const prettier = await import('prettier');
  const options = { ...(await prettier.resolveConfig(fileURLToPath(new URL('../../package.json', import.meta.url)))), parser: 'json' };
  const sine = (n: number, scale: number) => Array.from({ length: n }, (_, i) => Math.round(Math.sin(i * 7.3) * scale * 1000) / 1000);
  const current = {
    ...result('2026-11-30T15:29:23.127Z', [load('gateway', 500)]),
    upload: { ratio: 0.45, rounds: [0.4, 0.45, 0.56] },
    wide: { numbers: sine(90, 1000), strings: Array.from({ length: 30 }, (_, i) => `step-${i}`), nested: [{ a: [] as number[], b: [true, null, 'x"y'] }] },
  };
  const dir = mkdtempSync(join(tmpdir(), 'bench-history-'));
  try {
    const text = readFileSync(writeResult(dir, current as unknown as BenchResult), 'utf8');
    expect(text).toContain('"rounds": [0.4, 0.45, 0.56]');
    expect(text).toBe(await prettier.format(text, options));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
