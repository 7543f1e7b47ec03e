/**
 * Reports against a real chDB store with known data: every format is written, opened and read back
 * (CSV parsed, XLSX read with exceljs, PDF rendered to PNG with pdftoppm and its pixels checked).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { AppError, type AnalyticsStore, type Principal } from '@pylon/kit';
import { createChdbAnalyticsStore } from '@pylon/adapters/chdb';
import { prepareReportExport } from '../export-report.js';
import { listReports } from '../list-reports.js';
import type { ReportDirectory } from '../../../ports/report-directory.js';
import { ACC, PLAYS, seedReportData } from '../../../../test/fixtures/report-data.js';
import { printedFields } from '../../../../test/fixtures/csv-fields.js';

let dir: string;
let analytics: AnalyticsStore;
const caller = { accountId: ACC, policies: ['Analytics_View'], roles: ['Viewer', 'API'] } as unknown as Principal;
/** The account's devices and media, as the other subgraphs would answer. */
const DEVICES = new Map([
  ['dev-a', 'Lobby screen'],
  ['dev-b', 'Window'],
]);
const MEDIA = new Map([
  ['m-1', 'Promo'],
  ['m-2', 'Menu'],
]);
const directory: ReportDirectory = {
  devices: async (_c, ids) => new Map(ids.filter((i) => DEVICES.has(i)).map((i) => [i, DEVICES.get(i)!])),
  media: async (_c, ids) => new Map(ids.filter((i) => MEDIA.has(i)).map((i) => [i, MEDIA.get(i)!])),
  playlists: async (_c, ids) => new Map(ids.filter((i) => i === 'pl-1').map((i) => [i, 'Spring loop'])),
  schedules: async () => new Map(),
  listDevices: async (_c, max) => new Map([...DEVICES].slice(0, max)),
};
const deps = () => ({ analytics, directory, now: () => new Date('2024-06-01T00:00:00Z') });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pylon-reports-'));
  analytics = await createChdbAnalyticsStore({ path: join(dir, 'analytics') });
  await analytics.migrate();
  await seedReportData(analytics);
}, 60_000);
afterAll(async () => {
  await analytics.close();
  await rm(dir, { recursive: true, force: true });
});

async function exportBytes(body: Record<string, unknown>, d: ReturnType<typeof deps> = deps()): Promise<Buffer> {
  const file = await prepareReportExport(d, caller, body);
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (c: Buffer) => parts.push(c));
  await file.write(out);
  return Buffer.concat(parts);
}

const POP = { report_id: 'proof_of_play', start_date: '2024-05-01', end_date: '2024-05-02' };

/** Splits the CSV into header, row lines (as written) and summary pairs. */
function csvParts(text: string) {
  const [table, summary] = text.split('\r\n\r\n') as [string, string];
  const lines = table.split('\r\n');
  const pairs = Object.fromEntries(
    summary
      .trim()
      .split('\r\n')
      .map((l) => [l.slice(0, l.indexOf(',')), l.slice(l.indexOf(',') + 1)]),
  );
  return { header: lines[0]!, rows: lines.slice(1), pairs };
}

describe('catalog', () => {
  test('lists the reports with their parameters, in the reference Report shape', () => {
    const list = listReports(caller);
    expect(list.map((r) => r.id)).toEqual(['proof_of_play', 'device_uptime', 'audience_summary', 'media_performance', 'device_activity', 'event_summary']);
    for (const r of list) expect(Object.keys(r).sort()).toEqual(['description', 'id', 'name', 'parameters']);
    expect(list[0]!.parameters).toEqual(
      expect.arrayContaining([
        { id: 'start_date', name: expect.any(String), required: true, multi_value: false },
        { id: 'device_id', name: expect.any(String), required: false, multi_value: true },
      ]),
    );
    expect(listReports(caller, 'device_uptime')).toHaveLength(1);
    expect(() => listReports({ ...caller, policies: [] } as Principal)).toThrow(/Analytics_View/);
  });
});

describe('proof of play', () => {
  test('CSV: every play once, in order, formula cells escaped, totals = sum of rows, digest of the row lines', async () => {
    const text = (await exportBytes(POP)).toString('utf8');
    const { header, rows, pairs } = csvParts(text);
    // Playlist and schedule names need Playlists_View / Schedules_View, which this caller lacks: ids only.
    expect(header).toBe('Start (UTC),Device ID,Device,File ID,File,Duration (s),Playlist ID,Playlist,Schedule ID,Schedule,Play ID');
    expect(rows).toHaveLength(8);
    expect(rows[0]).toBe('2024-05-01T08:00:00.000Z,dev-a,Lobby screen,m-1,Promo.mp4,10.5,pl-1,,sc-1,,p1');
    expect(rows[2]).toBe(`2024-05-01T09:00:00.000Z,dev-a,Lobby screen,m-2,"'=HYPERLINK(""http://evil.example"",""x"")",0.125,pl-1,,sc-1,,p3`);
    expect(rows[4]).toContain('"Menu, ""daily"".png"');
    // The deleted file keeps its recorded name; the last millisecond of the end day is in.
    expect(rows[5]).toBe('2024-05-02T07:00:00.000Z,dev-b,Window,gone,Old promo.mp4,15,pl-1,,sc-1,,p6');
    expect(rows[7]).toMatch(/^2024-05-02T23:59:59\.999Z,.*,p8$/);
    const durations = rows.map((r) => Number(r.split(',').at(-6)));
    expect(pairs['Rows']).toBe('8');
    expect(Number(pairs['Total Duration (s)'])).toBe(durations.reduce((s, d) => s + d, 0));
    expect(pairs['Total Duration (s)']).toBe(String(PLAYS.reduce((s, p) => s + p.duration, 0)));
    // The digest as the file says: the play's fixed facts (no device name), fields as printed, \n-ended lines.
    expect(pairs['SHA-256 computed over']).toContain(
      'of the columns Play ID, Device ID, File ID, File, Start (UTC), Duration (s), Playlist ID, Schedule ID (in this order)',
    );
    const order = [10, 1, 3, 4, 0, 5, 6, 8]; // the header's positions of those columns
    const digest = createHash('sha256')
      .update(rows.map((r) => order.map((i) => printedFields(r)[i]).join(',') + '\n').join(''))
      .digest('hex');
    expect(pairs['SHA-256 of rows']).toBe(digest);
    expect(pairs['Generated (UTC)']).toBe('2024-06-01T00:00:00.000Z');
  });

  test('a re-export of the same range prints the same digest; another range another one', async () => {
    const digestOf = async (body: Record<string, unknown>) => csvParts((await exportBytes(body)).toString('utf8')).pairs['SHA-256 of rows'];
    const first = await digestOf(POP);
    expect(await digestOf(POP)).toBe(first);
    expect(await digestOf({ ...POP, end_date: '2024-05-01' })).not.toBe(first);
  });

  test('filters: devices, media and a daily window', async () => {
    const rowsOf = async (extra: Record<string, unknown>) => csvParts((await exportBytes({ ...POP, ...extra })).toString('utf8')).rows;
    expect((await rowsOf({ device_id: ['dev-b'] })).map((r) => r.split(',').at(-1))).toEqual(['p6', 'p7', 'p8']);
    expect((await rowsOf({ media_id: ['m-2'] })).map((r) => r.split(',').at(-1))).toEqual(['p3', 'p5']);
    const windowed = await rowsOf({ start_time: '2024-01-01T08:00:00Z', end_time: '2024-01-01T09:59:59Z' });
    expect(windowed.map((r) => r.split(',').at(-1))).toEqual(['p1', 'p2', 'p3']);
  });

  test('XLSX: typed cells, frozen bold header, number formats, a Summary sheet with the same digest', async () => {
    const csv = csvParts((await exportBytes(POP)).toString('utf8'));
    const bytes = await exportBytes({ ...POP, format: 'EXCEL' });
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes as unknown as ArrayBuffer);
    const ws = wb.getWorksheet('Report')!;
    expect(ws.rowCount).toBe(9);
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.getRow(1).getCell(1).value).toBe('Start (UTC)');
    expect(ws.getRow(1).font?.bold).toBe(true);
    const first = ws.getRow(2);
    expect(first.getCell(1).value).toEqual(new Date('2024-05-01T08:00:00.000Z'));
    expect(first.getCell(1).numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(first.getCell(6).value).toBe(10.5);
    expect(first.getCell(6).numFmt).toBe('#,##0.000');
    expect(ws.getRow(4).getCell(5).value).toBe('=HYPERLINK("http://evil.example","x")'); // a string cell, never a formula
    expect(ws.getRow(4).getCell(5).type).toBe(ExcelJS.ValueType.String);
    const summary = Object.fromEntries(
      wb
        .getWorksheet('Summary')!
        .getSheetValues()
        .slice(2)
        .map((r) => [(r as unknown[])[1], (r as unknown[])[2]]),
    );
    expect(summary['Rows']).toBe(8);
    expect(summary['Total Duration (s)']).toBe(120.875);
    expect(summary['SHA-256 of rows']).toBe(csv.pairs['SHA-256 of rows']);
  });

  // poppler-utils (.ci/run installs it): skipped locally without it, a failure in CI.
  const pdftoppm = existsSync('/usr/bin/pdftoppm') ? '/usr/bin/pdftoppm' : null;
  if (!pdftoppm && process.env.CI === 'true') test('pdftoppm is installed (poppler-utils)', () => expect(pdftoppm).not.toBeNull());
  (pdftoppm ? test : test.skip)('PDF: rendered to PNG, the chart has its bar colour and the table page has text', async () => {
    const bytes = await exportBytes({ ...POP, format: 'PDF', interval_type: 'Hour' });
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const pdf = join(dir, 'pop.pdf');
    await writeFile(pdf, bytes);
    // Page 1 (summary and chart) and page 2 (table) as PPM: plain RGB bytes after a short header.
    execFileSync(pdftoppm!, ['-r', '50', '-f', '1', '-l', '2', pdf, join(dir, 'page')]);
    execFileSync(pdftoppm!, ['-png', '-r', '60', '-f', '1', '-l', '2', pdf, process.env.REPORT_PNG_DIR ?? join(dir, 'pop')]);
    const page = (n: number) => readFile(join(dir, `page-${n}.ppm`));
    const pixels = (ppm: Buffer) => {
      const [, w, h] = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 40).toString('latin1'))!.map(Number) as [number, number, number];
      const header = ppm.length - w * h * 3;
      return { w, h, at: (x: number, y: number) => [...ppm.subarray(header + (y * w + x) * 3, header + (y * w + x) * 3 + 3)] };
    };
    const p1 = pixels(await page(1));
    let bars = 0;
    let dark = 0;
    for (let y = 0; y < p1.h; y++)
      for (let x = 0; x < p1.w; x++) {
        const [r, g, b] = p1.at(x, y) as [number, number, number];
        if (Math.abs(r - 0x2f) < 12 && Math.abs(g - 0x6f) < 12 && Math.abs(b - 0xdf) < 12) bars++;
        if (r < 80 && g < 80 && b < 80) dark++;
      }
    // Bars in the lower half of the page (the chart area); text (title, summary) above.
    expect(bars).toBeGreaterThan(200);
    expect(dark).toBeGreaterThan(500);
    const p2 = pixels(await page(2));
    let header = 0;
    for (let x = 0; x < p2.w; x++) {
      const [r, g, b] = p2.at(x, Math.round(p2.h * 0.07)) as [number, number, number];
      if (r === 0xe4 && g === 0xe8 && b === 0xf0) header++;
    }
    expect(header).toBeGreaterThan(p2.w / 2);
    const text = execFileSync('/usr/bin/pdftotext', ['-layout', pdf, '-']).toString();
    expect(text).toContain('Proof of play');
    expect(text).toContain('120.875');
    expect(text).toContain('Old promo.mp4');
  });
});

test('the chart has one point per period of the range, zeros included', async () => {
  const { ReportTally } = await import('../../../domain/reports/report-rows.js');
  const { proofOfPlay } = await import('../../../domain/reports/definitions/proof-of-play.report.js');
  const tally = new ReportTally(proofOfPlay.columns, proofOfPlay.chart, 'Hour');
  tally.take([
    { start: '2024-05-01T02:30:00.000Z', duration: 1 },
    { start: '2024-05-01T02:59:59.999Z', duration: 1 },
    { start: '2024-05-01T05:00:00.000Z', duration: 1 },
  ]);
  const points = tally.chartPoints(new Date('2024-05-01T00:00:00Z'), new Date('2024-05-01T06:00:00Z'));
  expect(points.map((p) => p.value)).toEqual([0, 0, 2, 0, 0, 1]);
  expect(points[2]!.label).toBe('2024-05-01T02');
  const months = new ReportTally(proofOfPlay.columns, proofOfPlay.chart, 'Month').chartPoints(
    new Date('2024-01-31T12:00:00Z'),
    new Date('2024-04-01T00:00:00Z'),
  );
  expect(months.map((p) => p.label)).toEqual(['2024-01', '2024-02', '2024-03']);
});

describe('aggregate reports', () => {
  const rowsOf = async (body: Record<string, unknown>) =>
    csvParts((await exportBytes({ start_date: '2024-05-01', end_date: '2024-05-02', ...body })).toString('utf8'));

  test("device uptime: deviceMetrics' minutes (144 of May 1st's 1440 = 10 %), every device and day, silent ones at 0 %", async () => {
    const { rows, pairs } = await rowsOf({ report_id: 'device_uptime' });
    expect(rows).toEqual([
      '2024-05-01T00:00:00.000Z,dev-a,Lobby screen,10,10,10,20,20,0',
      '2024-05-02T00:00:00.000Z,dev-a,Lobby screen,0,0,0,0,0,0',
      '2024-05-01T00:00:00.000Z,dev-b,Window,0,0,0,0,0,0',
      '2024-05-02T00:00:00.000Z,dev-b,Window,0,0,0,0,0,0',
    ]);
    expect(pairs['Average Uptime %']).toBe('2.5');
    expect(pairs['Total Alerts']).toBe('0');
  });

  test("device uptime over a power schedule's on-hours only: pings while off count neither up nor down, as in deviceMetrics", async () => {
    // dev-a is off 00:00-06:00 and 12:00-24:00 on May 1st: 360 on-minutes, 72 of them with a ping
    // (06:00-11:55; the 72 pinged minutes before 06:00 were off) = 20 %. dev-b has no schedule.
    const at = (h: number) => Date.UTC(2024, 4, 1, h);
    const asked: [string, number, number][] = [];
    const scheduled: ReportDirectory = {
      ...directory,
      powerOff: async (c, from, to) => {
        asked.push([c.accountId, from, to]);
        return new Map([
          [
            'dev-a',
            [
              [at(0), at(6)],
              [at(12), at(24)],
            ] as [number, number][],
          ],
          ['not-listed', [[at(0), at(24)]] as [number, number][]],
        ]);
      },
    };
    const bytes = await exportBytes({ report_id: 'device_uptime', start_date: '2024-05-01', end_date: '2024-05-01' }, { ...deps(), directory: scheduled });
    const { rows, pairs } = csvParts(bytes.toString('utf8'));
    expect(rows).toEqual(['2024-05-01T00:00:00.000Z,dev-a,Lobby screen,20,10,10,20,20,0', '2024-05-01T00:00:00.000Z,dev-b,Window,0,0,0,0,0,0']);
    expect(pairs['Average Uptime %']).toBe('10');
    // Asked once, for the caller's account and the export's range.
    expect(asked).toEqual([[ACC, at(0), at(24)]]);
  });

  test('media performance per day: plays, play time, average, devices; totals equal the rows', async () => {
    const { rows, pairs } = await rowsOf({ report_id: 'media_performance' });
    expect(rows).toEqual([
      '2024-05-01T00:00:00.000Z,m-1,Promo.mp4,3,60.5,20.167,1',
      `2024-05-01T00:00:00.000Z,m-2,"Menu, ""daily"".png",2,15.375,7.688,1`,
      '2024-05-02T00:00:00.000Z,gone,Old promo.mp4,1,15,15,1',
      '2024-05-02T00:00:00.000Z,m-1,Promo.mp4,2,30,15,1',
    ]);
    expect(pairs['Total Plays']).toBe('8');
    expect(pairs['Total Play time (s)']).toBe('120.875');
  });

  test('audience summary: impressions, visitors, dwell and gender split', async () => {
    const { rows } = await rowsOf({ report_id: 'audience_summary' });
    expect(rows).toEqual(['2024-05-01T00:00:00.000Z,4,2,2.5,2,1,1']);
  });
});

test('a client that goes away mid-export stops the read; the store keeps answering', async () => {
  await analytics.exec(
    `INSERT INTO play_logs (id, account_id, device_id, file_id, file_name, timestamp, duration, type, playlist_id, schedule_id)
     SELECT concat('big-', toString(number)), {acc:String}, 'dev-a', 'm-1', 'Promo.mp4',
            toDateTime64('2024-07-01 00:00:00', 3, 'UTC') + toIntervalSecond(number), 1, 'video', '', ''
     FROM numbers(100000)`,
    { acc: ACC },
  );
  for (const format of ['CSV', 'EXCEL', 'PDF'] as const) {
    const file = await prepareReportExport(deps(), caller, { report_id: 'proof_of_play', format, start_date: '2024-07-01', end_date: '2024-07-10' });
    let bytes = 0;
    const out = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _e, cb) {
        bytes += chunk.length;
        // A slow reader that then disconnects: never calls back after 64 KB, and is destroyed.
        if (bytes > 65_536) setTimeout(() => out.destroy(), 10);
        else cb();
      },
    });
    await expect(file.write(out)).rejects.toThrow(/went away|destroyed|premature|write after/i);
  }
  expect(await analytics.query('SELECT count() AS n FROM play_logs WHERE account_id = {acc:String} AND id LIKE {p:String}', { acc: ACC, p: 'big-%' })).toEqual([
    { n: 100000 },
  ]);
}, 60_000);

describe('refusals name the field', () => {
  const refusal = async (body: unknown): Promise<AppError> => {
    try {
      await prepareReportExport(deps(), caller, body);
    } catch (e) {
      return e as AppError;
    }
    throw new Error('accepted');
  };
  test.each([
    [{}, 'report_id'],
    [{ ...POP, report_id: 'nope' }, 'report_id'],
    [{ ...POP, format: 'WORD' }, 'format'],
    [{ ...POP, interval_type: 'Week' }, 'interval_type'],
    [{ ...POP, start_date: undefined }, 'start_date'],
    [{ ...POP, end_date: '2024-13-01' }, 'end_date'],
    [{ ...POP, end_date: '2024-04-01' }, 'end_date'],
    [{ ...POP, end_date: '2026-01-01' }, 'end_date'],
    [{ ...POP, interval_type: 'Minute', end_date: '2024-05-31' }, 'interval_type'],
    // 10,000 minutes long but starting inside a minute: 10,001 minute periods, refused here (not later, naming interval).
    [
      { ...POP, report_id: 'device_uptime', interval_type: 'Minute', start_date: '2024-05-01T00:00:30Z', end_date: '2024-05-07T22:40:29.999Z' },
      'interval_type',
    ],
    [{ ...POP, device_id: 'dev-a' }, 'device_id'],
    [{ ...POP, device_id: ['dev-a', ''] }, 'device_id[1]'],
    [{ ...POP, device_id: Array.from({ length: 1001 }, (_, i) => `d${i}`) }, 'device_id'],
    [{ ...POP, start_time: '2024-01-01T08:00:00Z' }, 'end_time'],
    [{ ...POP, user_id: ['u1'] }, 'user_id'],
    [{ ...POP, surprise: 1 }, 'surprise'],
    [{ ...POP, report_id: 'device_uptime', media_id: ['m-1'] }, 'media_id'],
    [[], 'body'],
  ])('%j -> 400 naming %s', async (body, field) => {
    const e = await refusal(body);
    expect(e).toBeInstanceOf(AppError);
    expect([e.code, e.details.field]).toEqual(['BAD_USER_INPUT', field]);
  });

  test('ids of another account (or unknown) are 404 naming the position', async () => {
    const dev = await refusal({ ...POP, device_id: ['dev-a', 'dev-of-other'] });
    expect([dev.code, dev.details.field]).toEqual(['NOT_FOUND', 'device_id[1]']);
    const media = await refusal({ ...POP, media_id: ['elsewhere'] });
    expect([media.code, media.details.field]).toEqual(['NOT_FOUND', 'media_id[0]']);
  });

  test('without Analytics_View: FORBIDDEN', async () => {
    await expect(prepareReportExport(deps(), { ...caller, policies: [] } as unknown as Principal, POP)).rejects.toThrow(/Analytics_View/);
  });
});
