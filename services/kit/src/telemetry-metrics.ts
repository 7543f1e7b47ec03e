/**
 * The telemetry pipeline's metrics, registered on a process's Prometheus registry: records in
 * (consumed) and out (inserted), dead-lettered, lag per topic and group (read from the stream at
 * scrape time), and what waits in the publishers' disk spool.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { EventStream } from './ports/stream.js';
import type { Spool } from './telemetry-spool.js';
import type { PublisherStats } from './telemetry-publisher.js';

export interface TelemetryMetrics {
  in: Counter<'topic'>;
  out: Counter<'table'>;
  /** Records the ingest dropped as delivered again (repeated in a batch or already stored). */
  duplicates: Counter<'table'>;
  deadLettered: Counter<'topic'>;
}

export function telemetryMetrics(
  registry: Registry,
  sources: {
    stream: EventStream;
    spool?: Spool | undefined;
    publishers?: () => readonly ({ topic: string; stats: PublisherStats; inMemory?: number } | undefined)[];
  },
): TelemetryMetrics {
  if (sources.publishers) {
    const publishers = sources.publishers;
    new Gauge({
      name: 'pylon_telemetry_publisher_records',
      help: 'Records of this process by outcome since start: published (the stream took them), spooled (waited on disk), lost (held nowhere; each was logged)',
      labelNames: ['topic', 'outcome'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const p of publishers()) {
          if (!p) continue;
          for (const outcome of ['published', 'spooled', 'lost'] as const) this.inc({ topic: p.topic, outcome }, p.stats[outcome]);
        }
      },
    });
    new Gauge({
      name: 'pylon_telemetry_publisher_in_memory',
      help: 'Records of this process in memory now (buffered, queued, in flight to the stream); at maxBuffered the rest spills to the spool',
      labelNames: ['topic'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const p of publishers()) if (p?.inMemory !== undefined) this.inc({ topic: p.topic }, p.inMemory);
      },
    });
  }
  const lag = new Gauge({
    name: 'pylon_telemetry_lag',
    help: 'Messages published but not yet consumed, per topic and consumer group',
    labelNames: ['topic', 'group'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const l of await sources.stream.lag().catch(() => [])) this.set({ topic: l.topic, group: l.group }, l.lag);
    },
  });
  void lag;
  if (sources.spool) {
    const spool = sources.spool;
    new Gauge({
      name: 'pylon_telemetry_spool_bytes',
      help: 'Bytes of telemetry waiting in the disk spool for the stream',
      registers: [registry],
      async collect() {
        this.set((await spool.size().catch(() => ({ bytes: 0 }))).bytes);
      },
    });
  }
  const counter = <L extends string>(name: string, label: L, help: string) => new Counter<L>({ name, help, labelNames: [label], registers: [registry] });
  return {
    in: counter('pylon_telemetry_ingest_in_total', 'topic', 'Telemetry records delivered to the ingest (redeliveries after a failed insert included)'),
    out: counter('pylon_telemetry_ingest_out_total', 'table', 'Rows inserted into the analytics store'),
    duplicates: counter(
      'pylon_telemetry_ingest_duplicates_total',
      'table',
      'Telemetry records delivered again (a redelivered batch, a retried request) and dropped, as the store holds them once already',
    ),
    deadLettered: counter('pylon_telemetry_dead_lettered_total', 'topic', 'Telemetry records moved to the dead letter'),
  };
}
