/**
 * The analytics datasets both facades serve (REST GET /analytics/<name> and POST /analytics/dataset,
 * legacy GET /analytics/<name> and POST /analytics/dataset): the persisted operation answering each,
 * its root field (and the root answering instead when `groupByDevice` or `source=events` asks for
 * it), and the parameters it applies beyond startDate, endDate and limit. Parameter names are
 * camelCase, as the spec gives them for analytics.
 *
 * Every dataset accepts the spec's whole common set (ANALYTICS_COMMON_PARAMS): a BI tool or a
 * generated client sends the same parameters to every endpoint. A common parameter a dataset does
 * not apply (interval on ping logs, eventName on impressions) is still checked, then has no effect;
 * rest.yaml says so on that endpoint.
 */
import { Kind, parse, type SelectionSetNode } from 'graphql';
import { snakeCase } from './case.js';

export interface AnalyticsDataset {
  operationId: string;
  root: string;
  alternative?: { root: string; flag: 'groupByDevice' | 'events'; when: (q: Record<string, unknown>) => boolean };
  /** The parameters it applies beyond startDate, endDate and limit: common ones and its own (timeZone, groupByFile ...). */
  params: readonly string[];
}

/** The spec's common analytics parameters (Current REST > Analytics): every dataset accepts all of them. */
export const ANALYTICS_COMMON_PARAMS = ['startDate', 'endDate', 'deviceId', 'fileId', 'eventName', 'interval', 'groupByDevice', 'limit'] as const;

/** Of the common parameters, the ones every dataset applies. */
const APPLIED_BY_EVERY_DATASET: readonly string[] = ['startDate', 'endDate', 'limit'];

/** A per-file media dataset whose groupByDevice answer is read from the per-device-and-file field `byDeviceRoot`. */
const groupedByDevice = (operationId: string, root: string, byDeviceRoot: string): AnalyticsDataset => ({
  operationId,
  root,
  alternative: { root: byDeviceRoot, flag: 'groupByDevice', when: (q) => q.groupByDevice === true },
  params: ['deviceId', 'fileId', 'groupByDevice'],
});

export const ANALYTICS_DATASETS: Readonly<Record<string, AnalyticsDataset>> = {
  playlogs: { operationId: 'listPlayLogs', root: 'playLogs', params: ['deviceId', 'fileId'] },
  pinglogs: { operationId: 'listPingLogs', root: 'pingLogs', params: ['deviceId'] },
  eventlogs: { operationId: 'listEventLogs', root: 'eventLogs', params: ['deviceId', 'eventName'] },
  eventmetrics: { operationId: 'getEventMetrics', root: 'eventMetrics', params: ['deviceId', 'eventName', 'interval', 'timeZone', 'groupByEvent'] },
  eventflow: { operationId: 'getEventFlow', root: 'eventFlow', params: ['deviceId', 'eventName'] },
  impressions: { operationId: 'listImpressions', root: 'impressions', params: ['deviceId', 'fileId'] },
  devicemetrics: { operationId: 'getDeviceMetrics', root: 'deviceMetrics', params: ['deviceId', 'interval', 'timeZone'] },
  audiencemetrics: { operationId: 'getAudienceMetrics', root: 'audienceMetrics', params: ['deviceId', 'fileId', 'interval', 'timeZone', 'includeDwellTime'] },
  mediaplaystats: groupedByDevice('getMediaPlayStats', 'mediaPlayStats', 'deviceMediaPlayStats'),
  deviceplaystats: { operationId: 'getDevicePlayStats', root: 'devicePlayStats', params: ['deviceId', 'fileId'] },
  playstatsbytime: { operationId: 'getPlayStatsByTime', root: 'playStatsByTime', params: ['deviceId', 'fileId', 'interval', 'timeZone', 'groupByFile'] },
  heatmap: {
    operationId: 'getHeatMap',
    root: 'heatMapData',
    alternative: { root: 'eventHeatMapData', flag: 'events', when: (q) => q.source === 'events' },
    params: ['deviceId', 'fileId', 'eventName', 'source', 'precision'],
  },
  mediaimpressions: groupedByDevice('getMediaImpressions', 'mediaImpressions', 'deviceMediaImpressions'),
  devicemediaimpressions: { operationId: 'getDeviceMediaImpressions', root: 'deviceMediaImpressions', params: ['deviceId', 'fileId'] },
};

/** Every parameter the dataset accepts: the common set and its own. */
export const analyticsParamsAccepted = (d: AnalyticsDataset): string[] => [...new Set<string>([...ANALYTICS_COMMON_PARAMS, ...d.params])];

/** The common parameters the dataset accepts (and checks) but does not apply: they have no effect on its rows. */
export const analyticsParamsWithoutEffect = (d: AnalyticsDataset): string[] =>
  ANALYTICS_COMMON_PARAMS.filter((p) => !APPLIED_BY_EVERY_DATASET.includes(p) && !d.params.includes(p));

/** The root field answering a dataset for these parameters. */
export const analyticsRootOf = (d: AnalyticsDataset, q: Record<string, unknown>): string => (d.alternative?.when(q) ? d.alternative.root : d.root);

/**
 * The columns of a dataset's rows as the facades answer them (snake_case, in selection order): the
 * fields the persisted document selects on `root` (fragment spreads followed). A CSV of an empty
 * result still carries them as its header row, and they cannot drift from what a row holds.
 */
export function datasetColumns(document: string, root: string): string[] {
  const doc = parse(document);
  const fragments = new Map(doc.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [])));
  const fieldsOf = (set: SelectionSetNode, seen: Set<string>): string[] =>
    set.selections.flatMap((s) => {
      if (s.kind === Kind.FIELD) return s.name.value === '__typename' ? [] : [(s.alias ?? s.name).value];
      if (s.kind === Kind.INLINE_FRAGMENT) return fieldsOf(s.selectionSet, seen);
      const frag = fragments.get(s.name.value);
      if (!frag || seen.has(s.name.value)) return [];
      return fieldsOf(frag, new Set([...seen, s.name.value]));
    });
  for (const def of doc.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const s of def.selectionSet.selections) {
      if (s.kind === Kind.FIELD && (s.alias ?? s.name).value === root && s.selectionSet) {
        return [...new Set(fieldsOf(s.selectionSet, new Set()).map(snakeCase))];
      }
    }
  }
  throw new Error(`the persisted document selects no root field '${root}'`);
}
