/** Helpers of the publisher tests: a logger that keeps its lines, and spool directories removed after the file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@pylon/kit/logger';

export interface Rec {
  id: string;
  account_id: string;
}
export const rec = (i: number): Rec => ({ id: `r${i}`, account_id: 'acc' });

export function captureLogger() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => lines.push({ level, obj, msg });
  const logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } as unknown as Logger;
  return { logger, lines };
}

/** A fresh spool directory per call; all are deleted after the test file (call from the file's top level or a test). */
export function spoolDirs(): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(join(tmpdir(), 'pylon-spool-'));
    dirs.push(d);
    return d;
  };
}
