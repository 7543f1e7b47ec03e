import type { AnalyticsStore } from '@pylon/kit';
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
        return readPlayLogs(store, ctx.principal, args);
      },
      pingLogs: (_, args, ctx) => {
        return readPingLogs(store, ctx.principal, args);
      },
      auditEvent: (_, args, ctx) => {
        return readAuditEvents(store, ctx.principal, args);
      },
      eventLogs: (_, args, ctx) => {
        return read.readEventLogs(store, ctx.principal, args);
      },
      eventMetrics: (_, args, ctx) => {
        return read.readEventMetrics(store, ctx.principal, args);
      },
      impressions: (_, args, ctx) => {
        return read.readImpressions(store, ctx.principal, args);
      },
      deviceMetrics: (_, args, ctx) => {
        return read.readDeviceMetrics(store, ctx.principal, args, { owned: owned(ctx) });
      },
      audienceMetrics: (_, args, ctx) => {
        return read.readAudienceMetrics(store, ctx.principal, args, { owned: owned(ctx) });
      },
      mediaPlayStats: (_, args, ctx) => {
        return read.readMediaPlayStats(store, ctx.principal, args);
      },
      devicePlayStats: (_, args, ctx) => {
        return read.readDevicePlayStats(store, ctx.principal, args);
      },
      deviceMediaPlayStats: (_, args, ctx) => {
        return read.readDeviceMediaPlayStats(store, ctx.principal, args);
      },
      playStatsByTime: (_, args, ctx) => {
        return read.readPlayStatsByTime(store, ctx.principal, args);
      },
      eventFlow: (_, args, ctx) => {
        return read.readEventFlow(store, ctx.principal, args);
      },
      heatMapData: (_, args, ctx) => {
        return read.readHeatMap(store, ctx.principal, 'impressions', args);
      },
      eventHeatMapData: (_, args, ctx) => {
        return read.readHeatMap(store, ctx.principal, 'event_logs', args);
      },
      mediaImpressions: (_, args, ctx) => {
        return read.readMediaImpressions(store, ctx.principal, args);
      },
      deviceMediaImpressions: (_, args, ctx) => {
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
