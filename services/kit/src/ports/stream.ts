/**
 * Stream port: durable-ish topics with consumer groups, for telemetry (pings, play logs,
 * events, audit). Embedded adapter: an in-process bus with a bounded buffer (publish waits
 * when it is full: backpressure). Scaled adapter: Kafka through kafkajs.
 * Delivery is at-least-once: a batch counts as consumed only after its handler resolves;
 * a handler that throws sees the same messages again after a backoff.
 */
export interface StreamMessage {
  key?: string;
  /** JSON-serialisable payload. */
  value: unknown;
  /** Milliseconds since epoch, set by the producer side when absent. */
  timestamp?: number;
}

export interface ConsumerOptions {
  /** Consumer group id; every group sees every message once. */
  group: string;
  /** Largest batch handed to the handler. */
  maxBatchSize?: number;
  /** How long a partial batch may wait before it is handed over. */
  maxWaitMs?: number;
}

export interface Subscription {
  close(): Promise<void>;
}

export interface EventStream {
  publish(topic: string, messages: StreamMessage[]): Promise<void>;
  subscribe(topic: string, options: ConsumerOptions, handler: (batch: StreamMessage[]) => Promise<void>): Promise<Subscription>;
  ping(): Promise<void>;
  /** Stops consumers after their current batch, then flushes producers. */
  close(): Promise<void>;
}
