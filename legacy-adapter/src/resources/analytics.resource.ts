/**
 * Legacy analytics datasets: GET /analytics/<dataset> with the dataset's parameters in the query,
 * and POST /analytics/dataset with the dataset named in a JSON or XML body; json (default), xml or
 * JSONP (callback) like every legacy resource. The datasets, their persisted operations and their
 * parameters are kit's ANALYTICS_DATASETS (the REST facade serves the same ones); parameter names
 * are camelCase, as the spec gives them for analytics, and rows come in snake_case. Every dataset
 * accepts the spec's common parameters; one it does not apply is checked, then has no effect.
 */
import { z } from 'zod';
import {
  ANALYTICS_DATASETS,
  analyticsParamsAccepted,
  analyticsParamsWithoutEffect,
  analyticsRootOf,
  badInput,
  snakeKeys,
  type AnalyticsDataset,
  type JsonObject,
} from '@pylon/kit';
import { defineResource, parseQuery, type LegacyOperationId, type LegacyQuery, type ResourceContext } from './resource.js';

const ids = z
  .union([z.string().max(200), z.array(z.string().max(200)).max(1000)])
  .transform((v) => (Array.isArray(v) ? v : [v]))
  .optional();
const bool = z
  .union([z.boolean(), z.enum(['true', 'false'])])
  .transform((v) => v === true || v === 'true')
  .optional();
const int = (max: number) => z.coerce.number().int().min(0).max(max).optional();

/** Every analytics parameter and how it is checked (a value of the wrong form is a 400 naming it). */
const PARAMS = {
  startDate: z.string().min(10).max(40),
  endDate: z.string().min(10).max(40),
  limit: int(10_000),
  deviceId: ids,
  fileId: ids,
  eventName: ids,
  // The spec's lowercase values; the GraphQL spelling (DAY) and any other case are taken too.
  interval: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['minute', 'hour', 'day', 'week', 'month'])).optional(),
  timeZone: z.string().min(1).max(64).optional(),
  groupByDevice: bool,
  groupByFile: bool,
  groupByEvent: bool,
  includeDwellTime: bool,
  precision: int(6),
  source: z.enum(['impressions', 'events']).optional(),
} as const;
type Param = keyof typeof PARAMS;
/** The checked parameters of a dataset request (those the dataset takes). */
type Checked = { [P in Param]?: z.infer<(typeof PARAMS)[P]> };

function datasetNamed(name: unknown): AnalyticsDataset {
  const d = typeof name === 'string' ? ANALYTICS_DATASETS[name] : undefined;
  if (!d) throw badInput('dataset', `dataset must be one of ${Object.keys(ANALYTICS_DATASETS).join(', ')}`);
  return d;
}

/** The dataset's rows for these parameters (the ones it accepts, all checked; any other is refused). */
async function rowsOf(d: AnalyticsDataset, given: Readonly<JsonObject>, run: ResourceContext['run']): Promise<unknown[]> {
  const names = analyticsParamsAccepted(d) as Param[];
  for (const k of Object.keys(given)) {
    if (!(names as string[]).includes(k)) throw badInput(k, `this dataset does not take ${k}`);
  }
  const schema = z.object(Object.fromEntries(names.map((n) => [n, PARAMS[n]])) as Record<string, z.ZodType>);
  const q = parseQuery(schema, given) as Checked;
  const withoutEffect = new Set(analyticsParamsWithoutEffect(d));
  // The dataset (chosen per request) names the document: its variables are built by name.
  const variables: JsonObject = {};
  for (const [k, v] of Object.entries(q)) {
    // groupByDevice and source pick the root field (below), not an argument.
    if (v === undefined || withoutEffect.has(k) || k === 'groupByDevice' || k === 'source') continue;
    variables[k] = k === 'interval' ? String(v).toUpperCase() : v;
  }
  if (d.alternative) variables[d.alternative.flag] = d.alternative.when(q);
  // The dataset table names the document (kit ANALYTICS_DATASETS): its rows are read generically.
  const data = (await run(d.operationId as LegacyOperationId, variables)) as Record<string, unknown[] | null | undefined>;
  return (data[analyticsRootOf(d, q)] ?? []).map((r) => snakeKeys(r));
}

/** Express query without the legacy envelope parameters. */
const ENVELOPE = new Set(['api_key', 'format', 'callback', '_']);
const paramsOfQuery = (query: LegacyQuery) => Object.fromEntries(Object.entries(query).filter(([k]) => !ENVELOPE.has(k)));

export const postAnalyticsDataset = defineResource<unknown[]>({
  method: 'post',
  path: '/analytics/dataset',
  operations: Object.values(ANALYTICS_DATASETS).map((d) => d.operationId),
  view: { root: 'dataset', item: 'row' },
  async handle({ body, run }) {
    const { dataset, ...given } = (body && typeof body === 'object' ? body : {}) as JsonObject;
    return rowsOf(datasetNamed(dataset), given, run);
  },
});

export const getAnalyticsDataset = defineResource<unknown[]>({
  method: 'get',
  path: '/analytics/:dataset',
  operations: Object.values(ANALYTICS_DATASETS).map((d) => d.operationId),
  view: { root: 'dataset', item: 'row' },
  async handle({ params, query, run }) {
    return rowsOf(datasetNamed(params.dataset), paramsOfQuery(query), run);
  },
});
