/**
 * The live event stream's metrics (GET /events/stream), on a process's Prometheus registry: how
 * many streams are open, and how often they read the push-event log. Idle streams that read on
 * the log writer's notices stay flat; reads growing with open streams while nothing happens mean
 * they poll (no shared pub/sub between the writer and this process).
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface LiveStreamMetrics {
  open: { inc(): void; dec(): void };
  logReads: { inc(): void };
}

/** The metrics on `registry`, registered once (a start attempt that is retried builds its routes again). */
export function liveStreamMetrics(registry: Registry): LiveStreamMetrics {
  const once = <M>(name: string, make: () => M): M => (registry.getSingleMetric(name) as M | undefined) ?? make();
  return {
    open: once(
      'pylon_events_streams_open',
      () => new Gauge({ name: 'pylon_events_streams_open', help: 'Open GET /events/stream connections in this process', registers: [registry] }),
    ),
    logReads: once(
      'pylon_events_stream_log_reads_total',
      () => new Counter({ name: 'pylon_events_stream_log_reads_total', help: 'Reads of the push-event log by open streams', registers: [registry] }),
    ),
  };
}
