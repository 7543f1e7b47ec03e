import { guardQuery, type AnalyticsStore } from '@pylon/kit';
import { readAuditEvents } from '../use-cases/read-audit.js';
import { readPingLogs, readPlayLogs } from '../use-cases/read-logs.js';
import * as read from '../use-cases/read-analytics.js';
import type { ReportDirectory } from '../ports/report-directory.js';
import { deviceNameLoader, ownedDevices } from './loaders.js';
import type { Resolvers } from './resolvers.generated.js';

/** Entity references by key: the devices and content subgraphs resolve them (null once deleted). */
const device = (r: { deviceId: string }) => ({ id: r.deviceId });
const file = (r: { fileId: string }) => ({ id: r.fileId });

export function analyticsResolvers(store: AnalyticsStore, directory?: ReportDirectory): Resolvers {
  // Without a directory (a subgraph built for tests alone) names stay null; the entity reference still resolves.
  const deviceName = (r: { deviceId: string }, _args: unknown, ctx: Parameters<typeof deviceNameLoader>[1]) =>
    directory && r.deviceId ? deviceNameLoader(directory, ctx).load(r.deviceId) : null;
  const owned = (ctx: Parameters<typeof deviceNameLoader>[1]) => (directory ? ownedDevices(directory, ctx) : undefined);
  return {
    Query: {
      playLogs: (_, args, ctx) => {
        guardQuery(ctx.principal, 'playLogs');
        return readPlayLogs(store, ctx.principal, args);
      },
      pingLogs: (_, args, ctx) => {
        guardQuery(ctx.principal, 'pingLogs');
        return readPingLogs(store, ctx.principal, args);
      },
      auditEvent: (_, args, ctx) => {
        guardQuery(ctx.principal, 'auditEvent');
        return readAuditEvents(store, ctx.principal, args);
      },
      eventLogs: (_, args, ctx) => {
        guardQuery(ctx.principal, 'eventLogs');
        return read.readEventLogs(store, ctx.principal, args);
      },
      eventMetrics: (_, args, ctx) => {
        guardQuery(ctx.principal, 'eventMetrics');
        return read.readEventMetrics(store, ctx.principal, args);
      },
      impressions: (_, args, ctx) => {
        guardQuery(ctx.principal, 'impressions');
        return read.readImpressions(store, ctx.principal, args);
      },
      deviceMetrics: (_, args, ctx) => {
        guardQuery(ctx.principal, 'deviceMetrics');
        return read.readDeviceMetrics(store, ctx.principal, args, { owned: owned(ctx) });
      },
      audienceMetrics: (_, args, ctx) => {
        guardQuery(ctx.principal, 'audienceMetrics');
        return read.readAudienceMetrics(store, ctx.principal, args, { owned: owned(ctx) });
      },
      mediaPlayStats: (_, args, ctx) => {
        guardQuery(ctx.principal, 'mediaPlayStats');
        return read.readMediaPlayStats(store, ctx.principal, args);
      },
      devicePlayStats: (_, args, ctx) => {
        guardQuery(ctx.principal, 'devicePlayStats');
        return read.readDevicePlayStats(store, ctx.principal, args);
      },
      deviceMediaPlayStats: (_, args, ctx) => {
        guardQuery(ctx.principal, 'deviceMediaPlayStats');
        return read.readDeviceMediaPlayStats(store, ctx.principal, args);
      },
      playStatsByTime: (_, args, ctx) => {
        guardQuery(ctx.principal, 'playStatsByTime');
        return read.readPlayStatsByTime(store, ctx.principal, args);
      },
      eventFlow: (_, args, ctx) => {
        guardQuery(ctx.principal, 'eventFlow');
        return read.readEventFlow(store, ctx.principal, args);
      },
      heatMapData: (_, args, ctx) => {
        guardQuery(ctx.principal, 'heatMapData');
        return read.readHeatMap(store, ctx.principal, 'impressions', args);
      },
      eventHeatMapData: (_, args, ctx) => {
        guardQuery(ctx.principal, 'eventHeatMapData');
        return read.readHeatMap(store, ctx.principal, 'event_logs', args);
      },
      mediaImpressions: (_, args, ctx) => {
        guardQuery(ctx.principal, 'mediaImpressions');
        return read.readMediaImpressions(store, ctx.principal, args);
      },
      deviceMediaImpressions: (_, args, ctx) => {
        guardQuery(ctx.principal, 'deviceMediaImpressions');
        return read.readDeviceMediaImpressions(store, ctx.principal, args);
      },
    },
    EventLog: { device },
    Impression: { device },
    DeviceMetric: { device, deviceName },
    AudienceMetric: { device, deviceName },
    DevicePlayStat: { device, deviceName },
    MediaPlayStat: { file },
    DeviceMediaPlayStat: { device, file, deviceName },
    MediaImpression: { file },
    DeviceMediaImpression: { device, file, deviceName },
  };
}
