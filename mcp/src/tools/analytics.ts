/** Play statistics, uptime, and proof of play for a range: read-only, rows capped. */
import { z } from 'zod';
import { documents as d, type PylonClient, type Result } from '@pylon/client';
import { defineTool } from '../tool.js';

/** The most rows an analytics tool answers: enough for an answer, never a warehouse dump into a context. */
export const MAX_ROWS = 500;
/** The most proof-of-play rows one export carries (CSV text in the answer). */
export const MAX_EXPORT_ROWS = 1000;

const range = {
  from: z.string().min(10).max(40).describe('Start of the range, included: YYYY-MM-DD or an ISO 8601 instant.'),
  to: z.string().min(10).max(40).describe('End of the range, included (a date alone covers that whole day).'),
  screenIds: z.array(z.string().min(1).max(200)).max(100).optional().describe('Only these screens; default every screen of your account.'),
  interval: z.enum(['HOUR', 'DAY', 'WEEK', 'MONTH']).optional().describe('Length of the periods, default DAY.'),
};

/** The analytics query's variables for a range tool's input; one row more than the cap, to know it was cut. */
const rangeVariables = (i: { from: string; to: string; interval?: string | undefined; screenIds?: string[] | undefined }) => ({
  startDate: i.from,
  endDate: i.to,
  interval: (i.interval ?? null) as d.AnalyticsIntervalType | null,
  deviceId: i.screenIds ?? null,
  limit: MAX_ROWS + 1,
});

/** The period of a per-period row: its start and end (ISO 8601 instants). */
const period = { periodStart: z.string(), periodEnd: z.string() };

/** A capped answer's shape: rows of `row`, and whether there were more. */
const cappedRows = <S extends z.ZodRawShape>(row: S) => ({ rows: z.array(z.object(row)), truncated: z.boolean() });

/** At most MAX_ROWS rows, and whether there were more. */
function capped<V, R>(r: Result<V>, rows: (v: V) => R[]): Result<{ rows: R[]; truncated: boolean }> {
  if (!r.ok) return r;
  const all = rows(r.value);
  return { ok: true, value: { rows: all.slice(0, MAX_ROWS), truncated: all.length > MAX_ROWS } };
}

/** A read tool over a range (`range` in, capped rows out): one analytics query over the range, its rows as `row` describes them. */
function rangeTool<R, S extends z.ZodRawShape>(spec: {
  name: string;
  title: string;
  description: string;
  row: S;
  query: (client: PylonClient, variables: ReturnType<typeof rangeVariables>) => Promise<Result<R>>;
  rows: (v: R) => z.infer<z.ZodObject<S>>[];
}) {
  return defineTool({
    name: spec.name,
    title: spec.title,
    kind: 'read',
    description: spec.description,
    input: range,
    output: cappedRows(spec.row),
    run: async (client, i) => capped(await spec.query(client, rangeVariables(i)), spec.rows),
  });
}

export const playStats = rangeTool({
  name: 'play_stats',
  title: 'Play statistics',
  description: `How often and how long each media file played per period over a range, across the given screens (default all of yours).
At most ${MAX_ROWS} rows (truncated says when there were more: narrow the range or the screens).`,
  row: {
    fileId: z.string().nullable(),
    fileName: z.string().nullable(),
    ...period,
    totalPlays: z.number(),
    totalDuration: z.number(),
  },
  query: (client, variables) => client.graphql(d.PlayStatsDocument, variables),
  rows: (v) => (v.playStatsByTime ?? []).map((x) => ({ ...x, fileId: x.fileId ?? null, fileName: x.fileName ?? null })),
});

export const uptime = rangeTool({
  name: 'uptime',
  title: 'Screen uptime',
  description: `Uptime per screen and period over a range: the share of the period's minutes with a ping (0 to 100), and health alerts counted.
Default every screen that pinged in the range. At most ${MAX_ROWS} rows (truncated says when there were more).`,
  row: {
    screenId: z.string(),
    screenName: z.string().nullable(),
    ...period,
    uptimePercentage: z.number(),
    alertCount: z.number(),
  },
  query: (client, variables) => client.graphql(d.UptimeDocument, variables),
  rows: (v) => (v.deviceMetrics ?? []).map(({ deviceId, deviceName, ...x }) => ({ screenId: deviceId, screenName: deviceName ?? null, ...x })),
});

export const exportProofOfPlay = defineTool({
  name: 'export_proof_of_play',
  title: 'Export proof of play',
  kind: 'read',
  description: `Proof of play for a range as CSV: one row per play (screen, file, start, duration), oldest first, formula-safe.
At most maxRows rows (default ${MAX_EXPORT_ROWS}, at most ${MAX_EXPORT_ROWS}); truncated says when the range holds more: export it in
smaller ranges, or use the REST endpoint GET /analytics/playlogs (Accept: text/csv) for a full file.`,
  input: {
    from: range.from,
    to: range.to,
    screenIds: range.screenIds,
    maxRows: z.number().int().min(1).max(MAX_EXPORT_ROWS).optional(),
  },
  output: { csv: z.string(), rows: z.number().int(), truncated: z.boolean() },
  async run(client, i) {
    const max = i.maxRows ?? MAX_EXPORT_ROWS;
    const r = await client.result(
      client.rest.GET('/analytics/playlogs', {
        params: { query: { startDate: i.from, endDate: i.to, deviceId: i.screenIds, limit: max + 1 } },
        headers: { accept: 'text/csv' },
        parseAs: 'text',
      }),
    );
    if (!r.ok) return r;
    const lines = String(r.value)
      .replace(/\r?\n$/, '')
      .split(/\r?\n/);
    const [header = '', ...body] = lines.filter((l, n) => n === 0 || l.length > 0);
    const kept = body.slice(0, max);
    return { ok: true, value: { csv: [header, ...kept].join('\n') + '\n', rows: kept.length, truncated: body.length > max } };
  },
});
