/**
 * `npm run bench`'s machine-readable result: each full run writes bench/history/<time>.json beside the
 * dated runs (BENCHMARKS.md), and prints each load's change against the newest earlier JSON there, so a
 * run says what moved without anyone diffing tables by hand. Smoke runs (`npm test`) write nothing.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadResult } from './load.js';
import type { CapacityStep } from './capacity.scenarios.js';
import type { StartResult } from './start.scenarios.js';
import type { UploadFigures } from './content.scenarios.js';
import { speedLine, type MachineSpeed } from './machine-speed.js';

export interface BenchResult {
  /** ISO time the run finished. */
  date: string;
  machine: string;
  node: string;
  commit?: string;
  loads: LoadResult[];
  /** Screens one all-in-one held (capacity scenario), with each step's figures. */
  capacity?: { screens: number; steps: CapacityStep[] };
  /** The same in the distributed topology over Redis: one, then two devices processes. */
  capacityDistributed?: { screens: number; steps: CapacityStep[] }[];
  /** Scenario 8: milliseconds from spawn to ready, per process (recorded since 2026-11-30). */
  starts?: StartResult[];
  /** Scenario 4: the upload against a local copy (recorded since 2026-11-30 14:30). */
  upload?: UploadFigures;
  /** The fixed probes at the start and the end of the run (bench/src/machine-speed.ts; recorded since 2026-12-01). */
  speed?: { start: MachineSpeed; end: MachineSpeed };
}

/** The newest earlier result in `dir` (file names sort by time), or undefined. */
export function previousResult(dir: string): BenchResult | undefined {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return undefined;
  }
  const last = files.sort().at(-1);
  return last ? (JSON.parse(readFileSync(join(dir, last), 'utf8')) as BenchResult) : undefined;
}

/** The change from `was` to `now` in percent, signed ("+4.9 %"). */
const percent = (now: number, was: number) => `${now >= was ? '+' : ''}${(((now - was) / was) * 100).toFixed(1)} %`;

/** One line per load of `current`: its req/s and the change against `previous` (same name), or "new". */
export function deltaLines(previous: BenchResult | undefined, current: BenchResult): string[] {
  const before = new Map((previous?.loads ?? []).map((l) => [l.name, l]));
  const width = Math.max(0, ...current.loads.map((l) => l.name.length));
  return current.loads.map((l) => {
    const p = before.get(l.name);
    const change = p && p.rps > 0 ? `${percent(l.rps, p.rps)} (was ${Math.round(p.rps)} req/s)` : 'new';
    return `${l.name.padEnd(width)}  ${String(Math.round(l.rps)).padStart(7)} req/s  ${change}`;
  });
}

/** One line per start of `current` (scenario 8): its milliseconds to ready from dist/ and the change against `previous`, or "new". */
export function startDeltaLines(previous: BenchResult | undefined, current: BenchResult): string[] {
  const before = new Map((previous?.starts ?? []).map((s) => [s.name, s]));
  return (current.starts ?? []).map((s) => {
    const p = before.get(s.name);
    const change = p ? `${s.distMs >= p.distMs ? '+' : ''}${Math.round(s.distMs - p.distMs)} ms (was ${Math.round(p.distMs)} ms)` : 'new';
    return `start: ${s.name}  ${Math.round(s.distMs)} ms  ${change}`;
  });
}

/** Scenario 4's ratio against `previous`'s, or nothing when either run did not record it. */
export function uploadDeltaLines(previous: BenchResult | undefined, current: BenchResult): string[] {
  const now = current.upload;
  if (!now) return [];
  const was = previous?.upload;
  const change = was ? `${now.ratio >= was.ratio ? '+' : ''}${(now.ratio - was.ratio).toFixed(2)} (was ${was.ratio.toFixed(2)}×)` : 'new';
  return [`upload / local copy  ${now.ratio.toFixed(2)}×  ${change}`];
}

/** The machine's speed at the start of `current` against `previous`'s start, or nothing when `current` did not record it. */
export function speedDeltaLines(previous: BenchResult | undefined, current: BenchResult): string[] {
  const now = current.speed?.start;
  if (!now) return [];
  const was = previous?.speed?.start;
  if (!was) return [`machine speed at the start  ${speedLine(now)}  new`];
  return [
    `machine speed at the start  SHA-512 ${now.sha512MBs} MB/s ${percent(now.sha512MBs, was.sha512MBs)} (was ${was.sha512MBs}), ` +
      `JSON ${now.jsonRoundTripsPerSecond} round trips/s ${percent(now.jsonRoundTripsPerSecond, was.jsonRoundTripsPerSecond)} (was ${was.jsonRoundTripsPerSecond})`,
  ];
}

/** The repository's print width (.prettierrc.json). */
const PRINT_WIDTH = 160;

/**
 * `JSON.stringify(value, null, 2)` as the repository's formatter writes it, so a result file is
 * committed as written: an array of numbers, strings, booleans or nulls stands on one line when
 * that line fits the print width (JSON.stringify puts one element a line).
 */
function formatJson(value: unknown): string {
  const scalar = String.raw`(?:-?\d[\d.eE+-]*|"(?:[^"\\]|\\.)*"|true|false|null)`;
  const array = new RegExp(String.raw`^( *)((?:"(?:[^"\\]|\\.)*": )?)\[\n((?: *${scalar},?\n)+) *\]`, 'gm');
  return JSON.stringify(value, null, 2).replace(array, (whole, indent: string, key: string, items: string, offset: number, text: string) => {
    const elements = items
      .split('\n')
      .filter(Boolean)
      .map((l) => l.trim().replace(/,$/, ''));
    const one = `${indent}${key}[${elements.join(', ')}]`;
    const rest = text.slice(offset + whole.length).match(/^[^\n]*/)![0]; // the `,` after the array, if any
    if (one.length + rest.length <= PRINT_WIDTH) return one;
    if (!elements.every((e) => /^-?\d/.test(e))) return whole;
    // Numbers that do not fit on one line fill lines up to the width (others stand one a line).
    const lines: string[] = [];
    for (const e of elements) {
      const last = lines.length - 1;
      if (last >= 0 && lines[last]!.length + 2 + e.length + 1 <= PRINT_WIDTH) lines[last] += ` ${e},`;
      else lines.push(`${indent}  ${e},`);
    }
    lines[lines.length - 1] = lines[lines.length - 1]!.slice(0, -1);
    return `${indent}${key}[\n${lines.join('\n')}\n${indent}]`;
  });
}

/** Writes `result` into `dir` as <date>.json (colons replaced, so the name is valid everywhere); returns its path. */
export function writeResult(dir: string, result: BenchResult): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${result.date.replace(/:/g, '-')}.json`);
  writeFileSync(file, `${formatJson(result)}\n`);
  return file;
}
