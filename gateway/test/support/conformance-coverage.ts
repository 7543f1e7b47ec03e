/**
 * After all jest files ran: which operations shared by rest.yaml and the reference were answered
 * with a success status (and so validated) by some e2e call, and which runtime allow-list entries
 * no longer occur. Computed from the per-worker records reference-conformance.ts appends, because
 * jest runs files in separate worker processes that share nothing else.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gapKey, type KnownGap } from './conformance-known-gaps.js';
import type { ConformanceRecord } from './reference-conformance.js';
import { operations, opKey, pathShape, type OpenApi } from './reference-document.js';

/**
 * `METHOD /reference/template` of every operation both documents have and ours can answer with a
 * success: one that declares no 2xx (POST /report/adhawk, a documented 501) has none to validate.
 */
export function sharedOperations(ours: OpenApi, reference: OpenApi): string[] {
  const succeeds = (op: { responses?: Record<string, unknown> }) => Object.keys(op.responses ?? {}).some((s) => s.startsWith('2'));
  const mine = new Set(
    operations(ours)
      .filter((o) => succeeds(o.op))
      .map((o) => `${o.method} ${pathShape(o.template)}`),
  );
  return operations(reference)
    .filter((o) => mine.has(`${o.method} ${pathShape(o.template)}`))
    .map((o) => opKey(o.method, o.template));
}

export function readRecords(dir: string): ConformanceRecord[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
  } catch {
    return [];
  }
  return files.flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ConformanceRecord),
  );
}

export interface Coverage {
  /** Shared operations with at least one validated success response. */
  covered: string[];
  /** Shared operations no e2e call got a success response from. */
  unexercised: string[];
  /** Allow-list entries no response showed. */
  stale: KnownGap[];
  /** Mismatches outside the allow-list (each also failed the test that made the call). */
  failures: string[];
}

export function coverage(shared: readonly string[], records: readonly ConformanceRecord[], gaps: readonly KnownGap[]): Coverage {
  const succeeded = new Set(records.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.op));
  const seenGaps = new Set(records.flatMap((r) => r.gaps));
  return {
    covered: shared.filter((op) => succeeded.has(op)),
    unexercised: shared.filter((op) => !succeeded.has(op)),
    stale: gaps.filter((g) => !seenGaps.has(gapKey(g))),
    failures: [...new Set(records.flatMap((r) => r.failures))].sort(),
  };
}
