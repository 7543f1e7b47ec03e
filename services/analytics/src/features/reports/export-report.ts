/**
 * POST /report/export: checks the request, the policy and every id before a byte is written, then
 * streams the rows from the analytics store through the tally into the chosen writer. Memory is
 * bounded by one chunk of rows (the store reads the next one only when the writer has drained),
 * so a year of plays streams like a day. The work is one function of (deps, caller, request) with
 * no HTTP in it, so it can move into a background job that writes to object storage unchanged.
 */
import type { Writable } from 'node:stream';
import { allows, AppError, guardHandler, type AnalyticsStore, type Logger, type Principal } from '@pylon/kit';
import { parseExportRequest } from '../../domain/reports/export-request.js';
import type { ReportDirectory } from '../../ports/report-directory.js';
import { ReportTally, type ReportBatch } from '../../domain/reports/report-rows.js';
import type { ReportDefinition, ReportFormat, ReportNames, ReportRequest, SqlReport } from '../../domain/reports/report.js';
import { scope } from '../../domain/reports/definitions/scope.js';
import { writeCsv } from '../../adapters/report-writers/csv.writer.js';
import type { ReportDocument, ReportWriter } from '../../adapters/report-writers/document.js';
import { writePdf } from '../../adapters/report-writers/pdf.writer.js';
import { writeXlsx } from '../../adapters/report-writers/xlsx.writer.js';
import { selectDistinctDevices, selectPlaybackIds, selectRecordedIds } from './report-ids.queries.js';
import { deviceSeriesBatches, planDeviceSeries } from './device-series-report.js';

export interface ReportsDeps {
  analytics: AnalyticsStore;
  directory: ReportDirectory;
  now?: () => Date;
  logger?: Logger;
}

/** Devices whose names one report looks up; further devices are shown by id. */
const MAX_NAMED_DEVICES = 10_000;
/** Playlists and schedules (each) whose names one report looks up; further ones are shown by id only. */
const MAX_NAMED_PLAYBACK = 10_000;

const FILES: Record<ReportFormat, { ext: string; contentType: string; writer: ReportWriter }> = {
  CSV: { ext: 'csv', contentType: 'text/csv; charset=utf-8', writer: writeCsv },
  EXCEL: { ext: 'xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', writer: writeXlsx },
  PDF: { ext: 'pdf', contentType: 'application/pdf', writer: writePdf },
};

export interface ReportFile {
  filename: string;
  contentType: string;
  /** The file's extension (csv, xlsx, pdf). */
  ext: string;
  /**
   * Streams the file into `out`; rejects when the store fails or the client goes away. `progress`
   * is awaited after each chunk with the rows read so far (a report job reports there).
   */
  write(out: Writable, o?: { progress?: (rowsDone: number) => Promise<void> }): Promise<void>;
  /**
   * The source records in the report's scope (one count over the raw table, no sorting): at most
   * the file's rows for aggregating reports, exactly them for one-row-per-record ones (proof of
   * play). Decides whether an export runs as a job.
   */
  estimateRows(): Promise<number>;
}

/**
 * Every device and media id must be the caller's: a live one (the directory), or one the caller's
 * own telemetry names (deleted since: its plays stay provable). A foreign or unknown one is a 404
 * naming its position. The directory answers first; the ids it does not know cost one query.
 */
async function checkIds(deps: ReportsDeps, caller: Principal, req: ReportRequest): Promise<void> {
  const [devices, media] = await Promise.all([
    req.deviceIds.length ? deps.directory.devices(caller, req.deviceIds) : new Map<string, string>(),
    req.mediaIds.length ? deps.directory.media(caller, req.mediaIds) : new Map<string, string>(),
  ]);
  const missing = { deviceIds: req.deviceIds.filter((id) => !devices.has(id)), mediaIds: req.mediaIds.filter((id) => !media.has(id)) };
  if (missing.deviceIds.length === 0 && missing.mediaIds.length === 0) return;
  const recorded = await selectRecordedIds(deps.analytics, caller.accountId, missing);
  for (const [field, ids, live, past] of [
    ['device_id', req.deviceIds, devices, recorded.devices],
    ['media_id', req.mediaIds, media, recorded.media],
  ] as const) {
    const i = ids.findIndex((id) => !live.has(id) && !past.has(id));
    if (i >= 0)
      throw new AppError('NOT_FOUND', `${field === 'device_id' ? 'device' : 'media'} '${ids[i]!.slice(0, 200)}' was not found`, { field: `${field}[${i}]` });
  }
}

const NO_NAMES = { ids: [], names: [] };

/** A directory answer as the parallel arrays the SQL splices in. */
const lookup = (found: Map<string, string>) => ({ ids: [...found.keys()], names: [...found.values()] });

/** A report's rows' scope: the account, the range, the devices and (where the report reads files) the media of the request. */
const reportScope = (req: ReportRequest, report: SqlReport) => scope(req, report.filters.media ? { media: 'file_id' } : {});

/**
 * The names the report's rows show: devices (distinct ids in the scope first, bounded) and, for
 * reports with `playbackNames`, playlists and schedules, each looked up only for a caller who may
 * view them (without Playlists_View or Schedules_View the names stay empty, the ids are printed).
 */
async function reportNames(deps: ReportsDeps, caller: Principal, report: SqlReport, req: ReportRequest): Promise<ReportNames> {
  const where = reportScope(req, report);
  const [devices, playback] = await Promise.all([
    report.deviceColumn ? selectDistinctDevices(deps.analytics, report.table, where, MAX_NAMED_DEVICES) : [],
    report.playbackNames ? selectPlaybackIds(deps.analytics, where, MAX_NAMED_PLAYBACK) : { playlists: [], schedules: [] },
  ]);
  const [d, pl, sc] = await Promise.all([
    devices.length ? deps.directory.devices(caller, devices) : null,
    playback.playlists.length && allows(caller, 'Playlists_View') ? deps.directory.playlists(caller, playback.playlists) : null,
    playback.schedules.length && allows(caller, 'Schedules_View') ? deps.directory.schedules(caller, playback.schedules) : null,
  ]);
  return { ...(d ? lookup(d) : NO_NAMES), playlists: pl ? lookup(pl) : NO_NAMES, schedules: sc ? lookup(sc) : NO_NAMES };
}

/** Where the rows come from: one streamed SELECT, or deviceMetrics per device and period. */
interface RowSource {
  rows(signal: AbortSignal): AsyncIterable<Record<string, unknown>[]>;
  estimate(): Promise<number>;
}

async function rowSource(deps: ReportsDeps, caller: Principal, report: ReportDefinition, request: ReportRequest, now: Date): Promise<RowSource> {
  if (report.kind === 'device-series') {
    const plan = await planDeviceSeries(deps, caller, request, now);
    return { rows: () => deviceSeriesBatches(deps.analytics, report, request, plan), estimate: async () => plan.rows };
  }
  const names = await reportNames(deps, caller, report, request);
  const { sql, params } = report.sql(request, names);
  return {
    rows: (signal) => deps.analytics.queryStream<Record<string, unknown>>(sql, params, { signal }),
    async estimate() {
      const { where, params: p } = reportScope(request, report);
      const [row] = await deps.analytics.query<{ n: string | number }>(`SELECT count() AS n FROM ${report.table} WHERE ${where}`, p);
      return Number(row?.n ?? 0);
    },
  };
}

function facts(report: ReportDefinition, req: ReportRequest): [string, string][] {
  const list = (ids: string[]) => (ids.length === 0 ? 'all' : ids.length <= 5 ? ids.join(', ') : `${ids.length}: ${ids.slice(0, 5).join(', ')}, ...`);
  const out: [string, string][] = [['Range (UTC)', `${req.from.toISOString()} to ${req.to.toISOString()} (end excluded)`]];
  if (report.filters.interval) out.push(['Interval', req.interval]);
  if (report.filters.device) out.push(['Devices', list(req.deviceIds)]);
  if (report.filters.media) out.push(['Media', list(req.mediaIds)]);
  if (req.timeOfDay) {
    const hms = (s: number) => new Date(s * 1000).toISOString().slice(11, 19);
    out.push(['Daily window (UTC)', `${hms(req.timeOfDay.start)} to ${hms(req.timeOfDay.end)}`]);
  }
  return out;
}

export async function prepareReportExport(deps: ReportsDeps, caller: Principal, body: unknown): Promise<ReportFile> {
  guardHandler(caller, 'exportReport');
  const { report, request } = parseExportRequest(caller.accountId, body);
  await checkIds(deps, caller, request);
  const now = (deps.now ?? (() => new Date()))();
  const source = await rowSource(deps, caller, report, request, now);
  const file = FILES[request.format];
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return {
    filename: `${report.id}_${day(request.from)}_${day(new Date(request.to.getTime() - 1))}.${file.ext}`,
    contentType: file.contentType,
    ext: file.ext,
    estimateRows: () => source.estimate(),
    async write(out, o = {}) {
      const tally = new ReportTally(report.columns, report.chart, request.interval, report.digest);
      const abort = new AbortController();
      const rows = source.rows(abort.signal);
      async function* batches(): AsyncGenerator<ReportBatch> {
        // CSV writes the lines only; XLSX and PDF read the typed cells.
        let done = 0;
        for await (const chunk of rows) {
          yield tally.take(chunk, request.format !== 'CSV');
          done += chunk.length;
          await o.progress?.(done);
        }
      }
      const doc: ReportDocument = {
        title: report.name,
        facts: facts(report, request),
        generatedAt: now,
        range: { from: request.from, to: request.to },
        columns: report.columns,
        chart: report.chart,
        batches: batches(),
        tally,
      };
      try {
        await file.writer(doc, out);
      } finally {
        abort.abort();
      }
    },
  };
}
