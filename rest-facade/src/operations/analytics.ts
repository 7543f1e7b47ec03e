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
import { isRecord, type GqlRecord } from './shape.js';
import type { RequestParams, RestInput, RestOperation, RestSuccess } from './types.js';
import { errors, jsonBody, jsonOrCsv, params, ref, route, type OpenApiObject, type OpenApiValue } from './route.js';
import { gql } from './gql.js';

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
function answer(data: GqlRecord, d: Dataset, root: string, input: RestInput): RestSuccess {
  const rows = recordsAt(data, root).map((r) => snakeKeys(r) as GqlRecord);
  if (wantsCsv(input.accept)) return { body: csvStream(rows, columnsOf(d, root)), contentType: 'text/csv; charset=utf-8' };
  return { body: rows };
}

/** GraphQL argument -> REST parameter for error fields: the same names. */
const SAME_NAMES = Object.fromEntries(Object.keys(PARAMS).map((p) => [p, p]));

/** A dataset's GET, running its document (written beside it, `gql\`...\``). */
function datasetOp(d: Dataset, document: string): RestOperation {
  const params = paramsOf(d);
  return {
    operationId: d.operationId,
    document,
    variables: (input) => ({
      ...mapFields(input.query, params, input),
      ...(d.alternative ? { [d.alternative.flag]: d.alternative.when(input.query) } : {}),
    }),
    respond: (data, input) => answer(data, d, rootOf(d, input.query), input),
    fieldNames: SAME_NAMES,
    accepts: { query: Object.keys(params) },
  };
}

/** What every dataset's GET says about its dates and CSV, with what a dataset adds between them. */
const datasetRules = (more?: string) =>
  [
    'Policy Analytics_View. startDate and endDate are required (ISO 8601; endDate is included at the precision written: a date alone covers that whole day, a time in whole seconds that second).',
    ...(more ? [more] : []),
    '`Accept: text/csv` answers the same rows as CSV (streamed, formula-safe).',
  ].join(' ');

/** A dataset's answers: its rows as JSON or CSV, or an error. */
const rows = (schema: OpenApiValue) => ({
  '200': { description: 'The rows (JSON, or CSV when the Accept header asks for text/csv).', content: jsonOrCsv(schema) },
  ...errors(400, 401, 403, 429, 500, 503),
});

/** A common parameter's component (rest.components.yaml): `deviceId` -> AnalyticsDeviceId. */
const component = (param: string) => `Analytics${param[0]!.toUpperCase()}${param.slice(1)}`;

/** What a dataset's GET declares beyond its dataset (kit ANALYTICS_DATASETS). */
interface DatasetRoute {
  summary: string;
  /** What its description says beyond the dates and CSV every dataset's says. */
  rules?: string;
  /** The OpenAPI description of each parameter the dataset applies that is not a common one (no component of its own). */
  own?: Readonly<Record<string, OpenApiObject>>;
  /** Its rows are per device already (groupByDevice, which it does not apply, then says so): AnalyticsGroupByDeviceAlways, else NoSplit. */
  perDevice?: boolean;
  /** The component schema of a row; two: the rows without and with groupByDevice (or source=events). */
  rows: string | readonly [string, string];
  /** The persisted document (`gql\`...\``). */
  document: string;
}

/**
 * `GET /analytics/<name>`: its parameters follow from the dataset, in this order: startDate and
 * endDate, the ones it applies (kit's order), the common ones it does not apply (NoEffect), limit.
 */
function datasetRoute(name: string, r: DatasetRoute) {
  const d = DATASETS[name]!;
  const applied = d.params.map((p) => (r.own?.[p] ? { name: p, in: 'query', ...r.own[p] } : params(component(p))[0]!));
  const withoutEffect = analyticsParamsWithoutEffect(d).map((p) =>
    p === 'groupByDevice' ? `AnalyticsGroupByDevice${r.perDevice ? 'Always' : 'NoSplit'}` : `${component(p)}NoEffect`,
  );
  const list = (schema: string) => ({ type: 'array', items: ref(schema) });
  return route(
    `GET /analytics/${name}`,
    {
      tags: ['Analytics'],
      summary: r.summary,
      description: datasetRules(r.rules),
      parameters: [...params('AnalyticsStartDate', 'AnalyticsEndDate'), ...applied, ...params(...withoutEffect, 'AnalyticsLimit')],
      responses: rows(typeof r.rows === 'string' ? list(r.rows) : { anyOf: r.rows.map(list) }),
    },
    datasetOp(d, r.document),
  );
}

export const listPlayLogs = datasetRoute('playlogs', {
  summary: 'Play logs (proof of play), oldest first.',
  rows: 'AnalyticsPlayLog',
  document: gql`
    # GET /analytics/playlogs: Play logs (proof of play), oldest first.
    query listPlayLogs($startDate: String!, $endDate: String!, $deviceId: [String!], $fileId: [String!], $limit: Int) {
      playLogs(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, fileId: $fileId, limit: $limit) {
        id
        timestamp
        deviceId
        fileId
        fileName
        duration
        type
        endTimestamp
        status
        clockOffsetMs
        zoneId
      }
    }
  `,
});
export const listPingLogs = datasetRoute('pinglogs', {
  summary: 'Ping (heartbeat and health) logs, oldest first.',
  rows: 'AnalyticsPingLog',
  document: gql`
    # GET /analytics/pinglogs: Ping (heartbeat and health) logs, oldest first.
    query listPingLogs($startDate: String!, $endDate: String!, $deviceId: [String!], $limit: Int) {
      pingLogs(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, limit: $limit) {
        id
        timestamp
        deviceId
        cpuUsage
        memoryUsage
        diskUsage
        ipAddress
        externalIpAddress
      }
    }
  `,
});
export const listEventLogs = datasetRoute('eventlogs', {
  summary: 'Custom device and application events, oldest first.',
  rows: 'AnalyticsEventLog',
  document: gql`
    # GET /analytics/eventlogs: Custom device and application events, oldest first.
    query listEventLogs($startDate: String!, $endDate: String!, $deviceId: [String!], $eventName: [String!], $limit: Int) {
      eventLogs(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, eventName: $eventName, limit: $limit) {
        id
        timestamp
        deviceId
        sessionId
        eventName
        properties
        latitude
        longitude
      }
    }
  `,
});
export const getEventMetrics = datasetRoute('eventmetrics', {
  summary: 'Events per period (and per event name with groupByEvent); empty periods as zeros.',
  own: {
    groupByEvent: { description: 'One series per event name (default false).', schema: { type: 'boolean', default: false } },
  },
  rows: 'AnalyticsEventMetric',
  document: gql`
    # GET /analytics/eventmetrics: Events per period (and per event name with groupByEvent); empty periods as zeros.
    query getEventMetrics(
      $startDate: String!
      $endDate: String!
      $deviceId: [String!]
      $eventName: [String!]
      $interval: AnalyticsIntervalType
      $timeZone: String
      $groupByEvent: Boolean
      $limit: Int
    ) {
      eventMetrics(
        startDate: $startDate
        endDate: $endDate
        interval: $interval
        groupByEvent: $groupByEvent
        timeZone: $timeZone
        deviceId: $deviceId
        eventName: $eventName
        limit: $limit
      ) {
        eventName
        periodStart
        periodEnd
        totalEvents
        uniqueSessions
      }
    }
  `,
});
export const getEventFlow = datasetRoute('eventflow', {
  summary: 'Links between consecutive events of a session, for Sankey views.',
  rows: 'AnalyticsEventFlowLink',
  document: gql`
    # GET /analytics/eventflow: Links between consecutive events of a session, for Sankey views.
    query getEventFlow($startDate: String!, $endDate: String!, $deviceId: [String!], $eventName: [String!], $limit: Int) {
      eventFlow(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, eventName: $eventName, limit: $limit) {
        source
        target
        count
      }
    }
  `,
});
export const listImpressions = datasetRoute('impressions', {
  summary: 'Audience detections from sensors, oldest first.',
  rows: 'AnalyticsImpression',
  document: gql`
    # GET /analytics/impressions: Audience detections from sensors, oldest first.
    query listImpressions($startDate: String!, $endDate: String!, $deviceId: [String!], $fileId: [String!], $limit: Int) {
      impressions(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, fileId: $fileId, limit: $limit) {
        id
        timestamp
        deviceId
        fileId
        sensor
        dwellTime
        gender
        ageRange
        visitorId
        latitude
        longitude
      }
    }
  `,
});
export const getDeviceMetrics = datasetRoute('devicemetrics', {
  summary: 'Device health per device and period: CPU, memory, uptime, alerts.',
  rules:
    "Uptime counts the minutes of a period that have begun (the current period so far; a future one is 0). Each deviceId that is the caller's device has its series, zeros without pings; without deviceId, the devices that pinged.",
  perDevice: true,
  rows: 'AnalyticsDeviceMetric',
  document: gql`
    # GET /analytics/devicemetrics: Device health per device and period: CPU, memory, uptime, alerts.
    query getDeviceMetrics($startDate: String!, $endDate: String!, $deviceId: [String!], $interval: AnalyticsIntervalType, $timeZone: String, $limit: Int) {
      deviceMetrics(startDate: $startDate, endDate: $endDate, interval: $interval, timeZone: $timeZone, deviceId: $deviceId, limit: $limit) {
        deviceId
        deviceName
        periodStart
        periodEnd
        avgCpuUsage
        maxCpuUsage
        avgMemoryUsage
        maxMemoryUsage
        uptimePercentage
        alertCount
      }
    }
  `,
});
export const getAudienceMetrics = datasetRoute('audiencemetrics', {
  summary: 'Audience per device and period: impressions, visitors, gender, age ranges.',
  own: {
    includeDwellTime: { description: 'Include avg_dwell_time (default false: null).', schema: { type: 'boolean', default: false } },
  },
  perDevice: true,
  rows: 'AnalyticsAudienceMetric',
  document: gql`
    # GET /analytics/audiencemetrics: Audience per device and period: impressions, visitors, gender, age ranges.
    query getAudienceMetrics(
      $startDate: String!
      $endDate: String!
      $deviceId: [String!]
      $fileId: [String!]
      $interval: AnalyticsIntervalType
      $timeZone: String
      $includeDwellTime: Boolean
      $limit: Int
    ) {
      audienceMetrics(
        startDate: $startDate
        endDate: $endDate
        interval: $interval
        includeDwellTime: $includeDwellTime
        timeZone: $timeZone
        deviceId: $deviceId
        fileId: $fileId
        limit: $limit
      ) {
        deviceId
        deviceName
        periodStart
        periodEnd
        totalImpressions
        uniqueVisitors
        avgDwellTime
        maleCount
        femaleCount
        unknownGenderCount
        ageUnder18
        age18To24
        age25To34
        age35To44
        age45To54
        age55To64
        age65To74
        ageOver74
      }
    }
  `,
});
export const getMediaPlayStats = datasetRoute('mediaplaystats', {
  summary: 'Plays per file; with groupByDevice per device and file.',
  rows: ['AnalyticsMediaPlayStat', 'AnalyticsDeviceMediaPlayStat'],
  document: gql`
    # GET /analytics/mediaplaystats: Plays per file; with groupByDevice per device and file.
    query getMediaPlayStats($startDate: String!, $endDate: String!, $deviceId: [String!], $fileId: [String!], $limit: Int, $groupByDevice: Boolean!) {
      mediaPlayStats(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, fileId: $fileId, limit: $limit) @skip(if: $groupByDevice) {
        fileId
        fileName
        totalPlays
        totalDuration
        avgDuration
        deviceCount
        firstPlayed
        lastPlayed
      }
      deviceMediaPlayStats(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, fileId: $fileId, limit: $limit) @include(if: $groupByDevice) {
        deviceId
        deviceName
        fileId
        fileName
        totalPlays
        totalDuration
        avgDuration
        firstPlayed
        lastPlayed
      }
    }
  `,
});
export const getDevicePlayStats = datasetRoute('deviceplaystats', {
  summary: 'Plays per device.',
  perDevice: true,
  rows: 'AnalyticsDevicePlayStat',
  document: gql`
    # GET /analytics/deviceplaystats: Plays per device.
    query getDevicePlayStats($startDate: String!, $endDate: String!, $deviceId: [String!], $fileId: [String!], $limit: Int) {
      devicePlayStats(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, fileId: $fileId, limit: $limit) {
        deviceId
        deviceName
        totalPlays
        totalDuration
        avgDuration
        fileCount
        firstPlayed
        lastPlayed
      }
    }
  `,
});
export const getPlayStatsByTime = datasetRoute('playstatsbytime', {
  summary: 'Plays per period (and per file with groupByFile); empty periods as zeros.',
  own: {
    groupByFile: { description: 'One series per file (default false).', schema: { type: 'boolean', default: false } },
  },
  rows: 'AnalyticsPlayStatByTime',
  document: gql`
    # GET /analytics/playstatsbytime: Plays per period (and per file with groupByFile); empty periods as zeros.
    query getPlayStatsByTime(
      $startDate: String!
      $endDate: String!
      $deviceId: [String!]
      $fileId: [String!]
      $interval: AnalyticsIntervalType
      $timeZone: String
      $groupByFile: Boolean
      $limit: Int
    ) {
      playStatsByTime(
        startDate: $startDate
        endDate: $endDate
        interval: $interval
        groupByFile: $groupByFile
        timeZone: $timeZone
        deviceId: $deviceId
        fileId: $fileId
        limit: $limit
      ) {
        fileId
        fileName
        periodStart
        periodEnd
        totalPlays
        totalDuration
        avgDuration
      }
    }
  `,
});
export const getHeatMap = datasetRoute('heatmap', {
  summary: 'Impressions (or, with source=events, events) per rounded coordinate.',
  own: {
    source: {
      description: 'impressions (default; fileId applies) or events (eventName applies).',
      schema: { type: 'string', enum: ['impressions', 'events'], default: 'impressions' },
    },
    precision: {
      description: 'Decimals the coordinates are rounded to (default 3, about 110 m).',
      schema: { type: 'integer', minimum: 0, maximum: 6, default: 3 },
    },
  },
  rows: 'AnalyticsHeatMapPoint',
  document: gql`
    # GET /analytics/heatmap: Impressions (or, with source=events, events) per rounded coordinate.
    query getHeatMap(
      $startDate: String!
      $endDate: String!
      $deviceId: [String!]
      $fileId: [String!]
      $eventName: [String!]
      $precision: Int
      $limit: Int
      $events: Boolean!
    ) {
      heatMapData(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, fileId: $fileId, precision: $precision, limit: $limit) @skip(if: $events) {
        latitude
        longitude
        weight
      }
      eventHeatMapData(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, eventName: $eventName, precision: $precision, limit: $limit)
        @include(if: $events) {
        latitude
        longitude
        weight
      }
    }
  `,
});
export const getMediaImpressions = datasetRoute('mediaimpressions', {
  summary: 'Opportunity to see per file; with groupByDevice per device and file.',
  rows: ['AnalyticsMediaImpression', 'AnalyticsDeviceMediaImpression'],
  document: gql`
    # GET /analytics/mediaimpressions: Opportunity to see per file; with groupByDevice per device and file.
    query getMediaImpressions($startDate: String!, $endDate: String!, $deviceId: [String!], $fileId: [String!], $limit: Int, $groupByDevice: Boolean!) {
      mediaImpressions(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, fileId: $fileId, limit: $limit) @skip(if: $groupByDevice) {
        fileId
        fileName
        totalPlays
        playsWithAudience
        totalImpressions
        impressionsPerPlay
        otsPercentage
      }
      deviceMediaImpressions(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, fileId: $fileId, limit: $limit) @include(if: $groupByDevice) {
        deviceId
        deviceName
        fileId
        fileName
        totalPlays
        playsWithAudience
        totalImpressions
        impressionsPerPlay
        otsPercentage
      }
    }
  `,
});
export const getDeviceMediaImpressions = datasetRoute('devicemediaimpressions', {
  summary: 'Opportunity to see per device and file.',
  perDevice: true,
  rows: 'AnalyticsDeviceMediaImpression',
  document: gql`
    # GET /analytics/devicemediaimpressions: Opportunity to see per device and file.
    query getDeviceMediaImpressions($startDate: String!, $endDate: String!, $deviceId: [String!], $fileId: [String!], $limit: Int) {
      deviceMediaImpressions(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, fileId: $fileId, limit: $limit) {
        deviceId
        deviceName
        fileId
        fileName
        totalPlays
        playsWithAudience
        totalImpressions
        impressionsPerPlay
        otsPercentage
      }
    }
  `,
});
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
  // rest.yaml's AnalyticsDatasetRequest (additionalProperties: false) gives every property a scalar or list type.
  return { operationId: d.operationId, op, asGet: { ...input, query: query as RequestParams } };
}

/** POST /analytics/dataset (legacy): the dataset named in the body, its GET parameters as body properties. */
export const getAnalyticsDataset: RestOperation = route(
  'POST /analytics/dataset',
  {
    tags: ['Analytics'],
    summary: 'One analytics dataset, named in the body with its parameters (legacy).',
    description:
      "The body names the dataset (the name of one GET /analytics endpoint, e.g. playstatsbytime) and carries that endpoint's parameters as properties; the answer is what the GET answers. Policy Analytics_View.",
    requestBody: jsonBody('AnalyticsDatasetRequest'),
    responses: {
      '200': {
        description: "The dataset's rows (JSON, or CSV when the Accept header asks for text/csv).",
        content: { 'application/json': { schema: { type: 'array', items: { type: 'object' } } }, 'text/csv': { schema: { type: 'string' } } },
      },
      ...errors(400, 401, 403, 429, 500, 503),
    },
  },
  {
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
  },
);

/** Every analytics operation by operationId, for the facade's registry. */
export const ANALYTICS_OPERATIONS: Readonly<Record<string, RestOperation>> = { ...GET_OPS, getAnalyticsDataset };
