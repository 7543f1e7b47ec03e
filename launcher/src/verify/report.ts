/**
 * What the self-check prints: a progress line per step while it runs and the pass/fail table at
 * the end. Every line goes through `redact` first: the settings' passwords, keys and the user
 * parts of connection strings never reach the output, whatever an error message quotes.
 */

export type Outcome = 'PASS' | 'FAIL' | 'SKIP';

export interface Row {
  /** What was checked, e.g. "redis: cache contract" or "scenario: telemetry". */
  check: string;
  /** Where: the server (address without credentials), "embedded (lmdb)", or "not given". */
  target: string;
  outcome: Outcome;
  ms: number;
  /** Counts for a pass, the problem for a failure, why for a skip. */
  detail: string;
}

/** Replaces every secret (and any user:password@ of a URL) in `text` with ***. */
export function redactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 3).sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text.replace(/(\/\/)[^/@\s]*@/g, '$1***@');
    for (const s of known) out = out.split(s).join('***');
    return out;
  };
}

/** An address as the table shows it: scheme, hosts and path, never user information or query (which may hold a password). */
export function showTarget(address: string): string {
  return address.replace(/\/\/[^/@\s]*@/, '//').replace(/[?#].*$/, '');
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function formatTable(rows: readonly Row[]): string {
  const head = ['CHECK', 'TARGET', 'RESULT', 'TIME', 'DETAIL'];
  const cells = rows.map((r) => [r.check, r.target, r.outcome, seconds(r.ms), r.detail]);
  const width = (i: number) => Math.max(head[i]!.length, ...cells.map((c) => c[i]!.length));
  const widths = [0, 1, 2, 3].map(width);
  const line = (c: string[]) =>
    c
      .map((v, i) => (i < 4 ? v.padEnd(widths[i]!) : v))
      .join('  ')
      .trimEnd();
  return [line(head), ...cells.map(line)].join('\n');
}

export function summary(rows: readonly Row[], ms: number): string {
  const n = (o: Outcome) => rows.filter((r) => r.outcome === o).length;
  const failed = n('FAIL');
  return `${failed === 0 ? 'PASSED' : 'FAILED'}: ${n('PASS')} passed, ${failed} failed, ${n('SKIP')} skipped in ${seconds(ms)}`;
}
