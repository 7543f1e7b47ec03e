/**
 * GET /analytics/... and POST /analytics/dataset onto the analytics queries. Described as data:
 * each endpoint names its root field (and the root answering with groupByDevice or source=events),
 * and which parameters it applies. Every endpoint accepts the spec's whole common set; one it does
 * not apply is validated by the OpenAPI document, then not passed on. Parameter names are camelCase as
 * the spec gives them; bodies are the GraphQL records in snake_case. `Accept: text/csv` answers the
 * same rows as a CSV stream.
 */
import {
  ANALYTICS_DATASETS,
  analyticsParamsAccepted,
  analyticsParamsWithoutEffect,
  analyticsRootOf,
  badInput,
  datasetColumns,
  loadOperations,
  snakeKeys,
  type AnalyticsDataset,
} from '@pylon/kit';
import { csvStream, wantsCsv } from '../csv.js';
import { mapFields, recordsAt, type FieldMap } from './declare.js';
import { isRecord } from './shape.js';
import type { RestInput, RestOperation, RestSuccess } from './types.js';

const upper = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v);

/** Every parameter any analytics endpoint takes -> its GraphQL argument. */
const PARAMS: FieldMap = {
  startDate: 'startDate',
  endDate: 'endDate',
  deviceId: 'deviceId',
  fileId: 'fileId',
  eventName: 'eventName',
  interval: { to: 'interval', map: upper },
  timeZone: 'timeZone',
  groupByEvent: 'groupByEvent',
  groupByFile: 'groupByFile',
  includeDwellTime: 'includeDwellTime',
  precision: 'precision',
  limit: 'limit',
  // Choose the root field (see `alternative`), not arguments.
  groupByDevice: false,
  source: false,
};

type Dataset = AnalyticsDataset;
const DATASETS = ANALYTICS_DATASETS;
/** The dataset's parameters: the ones without effect there are accepted but pass nothing on. */
const paramsOf = (d: Dataset): FieldMap => {
  const without = analyticsParamsWithoutEffect(d);
  return Object.fromEntries(analyticsParamsAccepted(d).map((p) => [p, without.includes(p) ? false : PARAMS[p]!]));
};
const rootOf = analyticsRootOf;

/** Each dataset root's columns, from the persisted documents (read once, on the first CSV answer). */
const columnCache = new Map<string, string[]>();
let persisted: ReadonlyMap<string, string> | undefined;
function columnsOf(d: Dataset, root: string): string[] {
  const key = `${d.operationId}.${root}`;
  let columns = columnCache.get(key);
  if (!columns) {
    persisted ??= loadOperations('rest');
    columns = datasetColumns(persisted.get(d.operationId) ?? '', root);
    columnCache.set(key, columns);
  }
  return columns;
}

/** The rows of the answering root as JSON, or as CSV when the caller asks for it (a header row even when empty). */
function answer(data: Record<string, unknown>, d: Dataset, root: string, input: RestInput): RestSuccess {
  const rows = recordsAt(data, root).map((r) => snakeKeys(r) as Record<string, unknown>);
  if (wantsCsv(input.accept)) return { body: csvStream(rows, columnsOf(d, root)), contentType: 'text/csv; charset=utf-8' };
  return { body: rows };
}

/** GraphQL argument -> REST parameter for error fields: the same names. */
const SAME_NAMES = Object.fromEntries(Object.keys(PARAMS).map((p) => [p, p]));

function datasetOp(d: Dataset): RestOperation {
  const params = paramsOf(d);
  return {
    variables: (input) => ({
      ...mapFields(input.query, params, input),
      ...(d.alternative ? { [d.alternative.flag]: d.alternative.when(input.query) } : {}),
    }),
    respond: (data, input) => answer(data, d, rootOf(d, input.query), input),
    fieldNames: SAME_NAMES,
    accepts: { query: Object.keys(params) },
  };
}

export const listPlayLogs = datasetOp(DATASETS.playlogs!);
export const listPingLogs = datasetOp(DATASETS.pinglogs!);
export const listEventLogs = datasetOp(DATASETS.eventlogs!);
export const getEventMetrics = datasetOp(DATASETS.eventmetrics!);
export const getEventFlow = datasetOp(DATASETS.eventflow!);
export const listImpressions = datasetOp(DATASETS.impressions!);
export const getDeviceMetrics = datasetOp(DATASETS.devicemetrics!);
export const getAudienceMetrics = datasetOp(DATASETS.audiencemetrics!);
export const getMediaPlayStats = datasetOp(DATASETS.mediaplaystats!);
export const getDevicePlayStats = datasetOp(DATASETS.deviceplaystats!);
export const getPlayStatsByTime = datasetOp(DATASETS.playstatsbytime!);
export const getHeatMap = datasetOp(DATASETS.heatmap!);
export const getMediaImpressions = datasetOp(DATASETS.mediaimpressions!);
export const getDeviceMediaImpressions = datasetOp(DATASETS.devicemediaimpressions!);

/** The GET operations by operationId. */
const GET_OPS: Readonly<Record<string, RestOperation>> = {
  listPlayLogs,
  listPingLogs,
  listEventLogs,
  getEventMetrics,
  getEventFlow,
  listImpressions,
  getDeviceMetrics,
  getAudienceMetrics,
  getMediaPlayStats,
  getDevicePlayStats,
  getPlayStatsByTime,
  getHeatMap,
  getMediaImpressions,
  getDeviceMediaImpressions,
};

/** The named dataset's GET operation and the body as its query; a parameter that dataset does not accept is refused. */
function datasetOf(input: RestInput): { operationId: string; op: RestOperation; asGet: RestInput } {
  const props = isRecord(input.body) ? input.body : {};
  const name = typeof props.dataset === 'string' ? props.dataset : '';
  const d = DATASETS[name];
  const op = d && GET_OPS[d.operationId];
  if (!d || !op) throw badInput('dataset', `dataset must be one of ${Object.keys(DATASETS).join(', ')}`);
  const { dataset: _, ...query } = props;
  const accepted = analyticsParamsAccepted(d);
  for (const k of Object.keys(query)) if (!accepted.includes(k)) throw badInput(k, `dataset ${name} does not take ${k}`);
  return { operationId: d.operationId, op, asGet: { ...input, query } };
}

/** POST /analytics/dataset (legacy): the dataset named in the body, its GET parameters as body properties. */
export const getAnalyticsDataset: RestOperation = {
  via: (input) => datasetOf(input).operationId,
  variables(input) {
    const { op, asGet } = datasetOf(input);
    return op.variables(asGet);
  },
  respond(data, input) {
    const { op, asGet } = datasetOf(input);
    return op.respond(data, asGet);
  },
  fieldNames: SAME_NAMES,
  accepts: { body: ['dataset', ...Object.keys(PARAMS)] },
};

/** Every analytics operation by operationId, for the facade's registry. */
export const ANALYTICS_OPERATIONS: Readonly<Record<string, RestOperation>> = { ...GET_OPS, getAnalyticsDataset };
