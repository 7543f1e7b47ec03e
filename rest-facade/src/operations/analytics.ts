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
import type { RequestParams, RestInput, RestOperation, RestSuccess } from './types.js';
import { errors, json, jsonOrCsv, params, ref, route, type OpenApiValue } from './route.js';
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
function answer(data: Record<string, unknown>, d: Dataset, root: string, input: RestInput): RestSuccess {
  const rows = recordsAt(data, root).map((r) => snakeKeys(r) as Record<string, unknown>);
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

/** What every dataset's GET says about its dates and CSV. */
const DATASET_RULES =
  'Policy Analytics_View. startDate and endDate are required (ISO 8601; endDate is included at the precision written: a date alone covers that whole day, a time in whole seconds that second). `Accept: text/csv` answers the same rows as CSV (streamed, formula-safe).';

/** A dataset's answers: its rows as JSON or CSV, or an error. */
const rows = (schema: OpenApiValue) => ({
  '200': { description: 'The rows (JSON, or CSV when the Accept header asks for text/csv).', content: jsonOrCsv(schema) },
  ...errors(400, 401, 403, 429, 500, 503),
});

export const listPlayLogs = route(
  'GET /analytics/playlogs',
  {
    tags: ['Analytics'],
    summary: 'Play logs (proof of play), oldest first.',
    description: DATASET_RULES,
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsFileId',
      'AnalyticsEventNameNoEffect',
      'AnalyticsIntervalNoEffect',
      'AnalyticsGroupByDeviceNoSplit',
      'AnalyticsLimit',
    ),
    responses: rows({ type: 'array', items: ref('AnalyticsPlayLog') }),
  },
  datasetOp(
    DATASETS.playlogs!,
    gql`
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
  ),
);
export const listPingLogs = route(
  'GET /analytics/pinglogs',
  {
    tags: ['Analytics'],
    summary: 'Ping (heartbeat and health) logs, oldest first.',
    description: DATASET_RULES,
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsFileIdNoEffect',
      'AnalyticsEventNameNoEffect',
      'AnalyticsIntervalNoEffect',
      'AnalyticsGroupByDeviceNoSplit',
      'AnalyticsLimit',
    ),
    responses: rows({ type: 'array', items: ref('AnalyticsPingLog') }),
  },
  datasetOp(
    DATASETS.pinglogs!,
    gql`
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
  ),
);
export const listEventLogs = route(
  'GET /analytics/eventlogs',
  {
    tags: ['Analytics'],
    summary: 'Custom device and application events, oldest first.',
    description: DATASET_RULES,
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsEventName',
      'AnalyticsFileIdNoEffect',
      'AnalyticsIntervalNoEffect',
      'AnalyticsGroupByDeviceNoSplit',
      'AnalyticsLimit',
    ),
    responses: rows({ type: 'array', items: ref('AnalyticsEventLog') }),
  },
  datasetOp(
    DATASETS.eventlogs!,
    gql`
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
  ),
);
export const getEventMetrics = route(
  'GET /analytics/eventmetrics',
  {
    tags: ['Analytics'],
    summary: 'Events per period (and per event name with groupByEvent); empty periods as zeros.',
    description: DATASET_RULES,
    parameters: [
      ...params('AnalyticsStartDate', 'AnalyticsEndDate', 'AnalyticsDeviceId', 'AnalyticsEventName', 'AnalyticsInterval', 'AnalyticsTimeZone'),
      { name: 'groupByEvent', in: 'query', description: 'One series per event name (default false).', schema: { type: 'boolean', default: false } },
      ...params('AnalyticsFileIdNoEffect', 'AnalyticsGroupByDeviceNoSplit', 'AnalyticsLimit'),
    ],
    responses: rows({ type: 'array', items: ref('AnalyticsEventMetric') }),
  },
  datasetOp(
    DATASETS.eventmetrics!,
    gql`
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
  ),
);
export const getEventFlow = route(
  'GET /analytics/eventflow',
  {
    tags: ['Analytics'],
    summary: 'Links between consecutive events of a session, for Sankey views.',
    description: DATASET_RULES,
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsEventName',
      'AnalyticsFileIdNoEffect',
      'AnalyticsIntervalNoEffect',
      'AnalyticsGroupByDeviceNoSplit',
      'AnalyticsLimit',
    ),
    responses: rows({ type: 'array', items: ref('AnalyticsEventFlowLink') }),
  },
  datasetOp(
    DATASETS.eventflow!,
    gql`
      # GET /analytics/eventflow: Links between consecutive events of a session, for Sankey views.
      query getEventFlow($startDate: String!, $endDate: String!, $deviceId: [String!], $eventName: [String!], $limit: Int) {
        eventFlow(startDate: $startDate, endDate: $endDate, deviceId: $deviceId, eventName: $eventName, limit: $limit) {
          source
          target
          count
        }
      }
    `,
  ),
);
export const listImpressions = route(
  'GET /analytics/impressions',
  {
    tags: ['Analytics'],
    summary: 'Audience detections from sensors, oldest first.',
    description: DATASET_RULES,
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsFileId',
      'AnalyticsEventNameNoEffect',
      'AnalyticsIntervalNoEffect',
      'AnalyticsGroupByDeviceNoSplit',
      'AnalyticsLimit',
    ),
    responses: rows({ type: 'array', items: ref('AnalyticsImpression') }),
  },
  datasetOp(
    DATASETS.impressions!,
    gql`
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
  ),
);
export const getDeviceMetrics = route(
  'GET /analytics/devicemetrics',
  {
    tags: ['Analytics'],
    summary: 'Device health per device and period: CPU, memory, uptime, alerts.',
    description:
      "Policy Analytics_View. startDate and endDate are required (ISO 8601; endDate is included at the precision written: a date alone covers that whole day, a time in whole seconds that second). Uptime counts the minutes of a period that have begun (the current period so far; a future one is 0). Each deviceId that is the caller's device has its series, zeros without pings; without deviceId, the devices that pinged. `Accept: text/csv` answers the same rows as CSV (streamed, formula-safe).",
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsInterval',
      'AnalyticsTimeZone',
      'AnalyticsFileIdNoEffect',
      'AnalyticsEventNameNoEffect',
      'AnalyticsGroupByDeviceAlways',
      'AnalyticsLimit',
    ),
    responses: rows({ type: 'array', items: ref('AnalyticsDeviceMetric') }),
  },
  datasetOp(
    DATASETS.devicemetrics!,
    gql`
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
  ),
);
export const getAudienceMetrics = route(
  'GET /analytics/audiencemetrics',
  {
    tags: ['Analytics'],
    summary: 'Audience per device and period: impressions, visitors, gender, age ranges.',
    description: DATASET_RULES,
    parameters: [
      ...params('AnalyticsStartDate', 'AnalyticsEndDate', 'AnalyticsDeviceId', 'AnalyticsFileId', 'AnalyticsInterval', 'AnalyticsTimeZone'),
      {
        name: 'includeDwellTime',
        in: 'query',
        description: 'Include avg_dwell_time (default false: null).',
        schema: { type: 'boolean', default: false },
      },
      ...params('AnalyticsEventNameNoEffect', 'AnalyticsGroupByDeviceAlways', 'AnalyticsLimit'),
    ],
    responses: rows({ type: 'array', items: ref('AnalyticsAudienceMetric') }),
  },
  datasetOp(
    DATASETS.audiencemetrics!,
    gql`
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
  ),
);
export const getMediaPlayStats = route(
  'GET /analytics/mediaplaystats',
  {
    tags: ['Analytics'],
    summary: 'Plays per file; with groupByDevice per device and file.',
    description: DATASET_RULES,
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsFileId',
      'AnalyticsGroupByDevice',
      'AnalyticsEventNameNoEffect',
      'AnalyticsIntervalNoEffect',
      'AnalyticsLimit',
    ),
    responses: rows({
      anyOf: [
        { type: 'array', items: ref('AnalyticsMediaPlayStat') },
        { type: 'array', items: ref('AnalyticsDeviceMediaPlayStat') },
      ],
    }),
  },
  datasetOp(
    DATASETS.mediaplaystats!,
    gql`
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
  ),
);
export const getDevicePlayStats = route(
  'GET /analytics/deviceplaystats',
  {
    tags: ['Analytics'],
    summary: 'Plays per device.',
    description: DATASET_RULES,
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsFileId',
      'AnalyticsEventNameNoEffect',
      'AnalyticsIntervalNoEffect',
      'AnalyticsGroupByDeviceAlways',
      'AnalyticsLimit',
    ),
    responses: rows({ type: 'array', items: ref('AnalyticsDevicePlayStat') }),
  },
  datasetOp(
    DATASETS.deviceplaystats!,
    gql`
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
  ),
);
export const getPlayStatsByTime = route(
  'GET /analytics/playstatsbytime',
  {
    tags: ['Analytics'],
    summary: 'Plays per period (and per file with groupByFile); empty periods as zeros.',
    description: DATASET_RULES,
    parameters: [
      ...params('AnalyticsStartDate', 'AnalyticsEndDate', 'AnalyticsDeviceId', 'AnalyticsFileId', 'AnalyticsInterval', 'AnalyticsTimeZone'),
      { name: 'groupByFile', in: 'query', description: 'One series per file (default false).', schema: { type: 'boolean', default: false } },
      ...params('AnalyticsEventNameNoEffect', 'AnalyticsGroupByDeviceNoSplit', 'AnalyticsLimit'),
    ],
    responses: rows({ type: 'array', items: ref('AnalyticsPlayStatByTime') }),
  },
  datasetOp(
    DATASETS.playstatsbytime!,
    gql`
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
  ),
);
export const getHeatMap = route(
  'GET /analytics/heatmap',
  {
    tags: ['Analytics'],
    summary: 'Impressions (or, with source=events, events) per rounded coordinate.',
    description: DATASET_RULES,
    parameters: [
      ...params('AnalyticsStartDate', 'AnalyticsEndDate', 'AnalyticsDeviceId', 'AnalyticsFileId', 'AnalyticsEventName'),
      {
        name: 'source',
        in: 'query',
        description: 'impressions (default; fileId applies) or events (eventName applies).',
        schema: { type: 'string', enum: ['impressions', 'events'], default: 'impressions' },
      },
      {
        name: 'precision',
        in: 'query',
        description: 'Decimals the coordinates are rounded to (default 3, about 110 m).',
        schema: { type: 'integer', minimum: 0, maximum: 6, default: 3 },
      },
      ...params('AnalyticsIntervalNoEffect', 'AnalyticsGroupByDeviceNoSplit', 'AnalyticsLimit'),
    ],
    responses: rows({ type: 'array', items: ref('AnalyticsHeatMapPoint') }),
  },
  datasetOp(
    DATASETS.heatmap!,
    gql`
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
  ),
);
export const getMediaImpressions = route(
  'GET /analytics/mediaimpressions',
  {
    tags: ['Analytics'],
    summary: 'Opportunity to see per file; with groupByDevice per device and file.',
    description: DATASET_RULES,
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsFileId',
      'AnalyticsGroupByDevice',
      'AnalyticsEventNameNoEffect',
      'AnalyticsIntervalNoEffect',
      'AnalyticsLimit',
    ),
    responses: rows({
      anyOf: [
        { type: 'array', items: ref('AnalyticsMediaImpression') },
        { type: 'array', items: ref('AnalyticsDeviceMediaImpression') },
      ],
    }),
  },
  datasetOp(
    DATASETS.mediaimpressions!,
    gql`
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
  ),
);
export const getDeviceMediaImpressions = route(
  'GET /analytics/devicemediaimpressions',
  {
    tags: ['Analytics'],
    summary: 'Opportunity to see per device and file.',
    description: DATASET_RULES,
    parameters: params(
      'AnalyticsStartDate',
      'AnalyticsEndDate',
      'AnalyticsDeviceId',
      'AnalyticsFileId',
      'AnalyticsEventNameNoEffect',
      'AnalyticsIntervalNoEffect',
      'AnalyticsGroupByDeviceAlways',
      'AnalyticsLimit',
    ),
    responses: rows({ type: 'array', items: ref('AnalyticsDeviceMediaImpression') }),
  },
  datasetOp(
    DATASETS.devicemediaimpressions!,
    gql`
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
  ),
);

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
    requestBody: { required: true, content: json(ref('AnalyticsDatasetRequest')) },
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
