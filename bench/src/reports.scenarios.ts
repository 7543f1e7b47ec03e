/**
 * Scenario 10 (reports): a proof-of-play CSV export of BENCH_ROWS plays (1,000,000 by default),
 * generated inside the analytics store (chDB) with numbers(), through the same code POST
 * /report/export runs (prepareReportExport: validation, id checks, device names, the streamed
 * query, tally, digest, CSV writer) into a file; beside it the baseline: the same SQL's output
 * written straight to a file by chDB (SELECT ... INTO OUTFILE ... FORMAT CSV). Reports the time of
 * both and the peak RSS above idle during the export (sampled every 20 ms; chDB's native memory is
 * in the RSS). Targets: < 10 s and < 200 MB above idle for 1M rows.
 * `tsx --expose-gc bench/src/reports.scenarios.ts` runs it alone; `npm run bench` runs it last
 * (chDB holds one data directory per process, so after the all-in-one server has closed its own).
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { Principal } from '@pylon/kit';
import { createChdbAnalyticsStore } from '@pylon/adapters/chdb';
import { prepareReportExport } from '@pylon/analytics/features/reports/export-report';
import { watchRss } from './rss.js';

const ACCOUNT = 'bench-account';
const DEVICES = 100;

export interface ReportsBenchResult {
  rows: number;
  seconds: number;
  baselineSeconds: number;
  baselineMb: number;
  mb: number;
  peakAboveIdleMb: number;
}

/** The last lines of the file: the summary the export printed. */
async function summaryOf(path: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let inSummary = false;
  for await (const line of createInterface({ input: createReadStream(path) })) {
    if (line === '') inSummary = true;
    else if (inSummary) out[line.slice(0, line.indexOf(','))] = line.slice(line.indexOf(',') + 1);
  }
  return out;
}

export async function reportsScenario(o: { rows: number }): Promise<ReportsBenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'pylon-bench-reports-'));
  const analytics = await createChdbAnalyticsStore({ path: join(dir, 'analytics') });
  try {
    await analytics.migrate();
    // Plays over 30 days on 100 devices and 50 files, written by the engine itself.
    await analytics.exec(
      `INSERT INTO play_logs (id, account_id, device_id, file_id, file_name, timestamp, duration, type, playlist_id, schedule_id)
       SELECT concat('play-', toString(number)), {acc:String}, concat('dev-', toString(number % ${DEVICES})),
              concat('file-', toString(number % 50)), concat('Spot ', toString(number % 50), '.mp4'),
              toDateTime64('2024-05-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(intDiv(number * 2592000000, {rows:UInt64})),
              5 + (number % 300) / 10, 'video', concat('pl-', toString(number % 7)), concat('sc-', toString(number % 3))
       FROM numbers({rows:UInt64})`,
      { acc: ACCOUNT, rows: o.rows },
    );
    const names = new Map(Array.from({ length: DEVICES }, (_, i) => [`dev-${i}`, `Screen ${i}`]));
    const deps = {
      analytics,
      directory: {
        devices: async (_c: Principal, ids: readonly string[]) => new Map(ids.filter((i) => names.has(i)).map((i) => [i, names.get(i)!])),
        media: async () => new Map<string, string>(),
        playlists: async () => new Map<string, string>(),
        schedules: async () => new Map<string, string>(),
        listDevices: async () => names,
      },
    };
    const caller = { accountId: ACCOUNT, policies: ['Analytics_View'], roles: ['Viewer'] } as unknown as Principal;
    const body = { report_id: 'proof_of_play', format: 'CSV', start_date: '2024-05-01', end_date: '2024-05-30' };

    // Baseline: the report's own SQL, written to a file by chDB.
    const { proofOfPlay } = await import('@pylon/analytics/domain/reports/definitions/proof-of-play.report');
    const { sql, params } = proofOfPlay.sql(
      {
        accountId: ACCOUNT,
        format: 'CSV',
        interval: 'Day',
        from: new Date('2024-05-01T00:00:00Z'),
        to: new Date('2024-05-31T00:00:00Z'),
        timeOfDay: null,
        deviceIds: [],
        mediaIds: [],
      },
      { ids: [...names.keys()], names: [...names.values()], playlists: { ids: [], names: [] }, schedules: { ids: [], names: [] } },
    );
    const rawPath = join(dir, 'raw.csv');
    const b0 = performance.now();
    await analytics.exec(`${sql}\nINTO OUTFILE '${rawPath}' TRUNCATE FORMAT CSVWithNames`, params);
    const baselineSeconds = (performance.now() - b0) / 1000;
    const baselineMb = statSync(rawPath).size / 1e6;

    const rss = await watchRss({ everyMs: 20 });
    const path = join(dir, 'report.csv');
    const t0 = performance.now();
    const file = await prepareReportExport(deps, caller, body);
    await file.write(createWriteStream(path));
    const seconds = (performance.now() - t0) / 1000;
    const { idle, peak } = rss.stop();
    const summary = await summaryOf(path);
    if (Number(summary['Rows']) !== o.rows) throw new Error(`the export printed ${summary['Rows']} rows, expected ${o.rows}`);
    return { rows: o.rows, seconds, baselineSeconds, baselineMb, mb: statSync(path).size / 1e6, peakAboveIdleMb: (peak - idle) / 1e6 };
  } finally {
    await analytics.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function printReports(r: ReportsBenchResult): void {
  const ok = r.seconds < 10 && r.peakAboveIdleMb < 200;
  console.log(
    `proof-of-play CSV export, ${r.rows.toLocaleString('en')} plays: ${r.seconds.toFixed(1)} s, ${r.mb.toFixed(0)} MB, peak RSS ${r.peakAboveIdleMb.toFixed(0)} MB above idle` +
      ` | baseline (same SQL, chDB INTO OUTFILE): ${r.baselineSeconds.toFixed(1)} s, ${r.baselineMb.toFixed(0)} MB` +
      (r.rows >= 1_000_000 ? ` | targets < 10 s, < 200 MB: ${ok ? 'met' : 'NOT met'}` : ''),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printReports(await reportsScenario({ rows: Number(process.env.BENCH_ROWS ?? 1_000_000) }));
}
