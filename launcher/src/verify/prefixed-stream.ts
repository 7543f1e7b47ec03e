/**
 * An EventStream whose topic and group names carry a prefix: a self-check run on the operator's
 * Kafka keeps to names of its own (never the production topics, whose traffic it must not
 * consume), and its clean-up deletes exactly what starts with the prefix. Delivered messages,
 * lag and dead letters name topics and groups as the caller named them.
 */
import type { ConsumerOptions, DeadLetter, EventStream, StreamMessage } from '@pylon/kit';

export function prefixedStream(stream: EventStream, prefix: string): EventStream {
  const on = (name: string) => `${prefix}${name}`;
  const off = (name: string) => (name.startsWith(prefix) ? name.slice(prefix.length) : name);
  const isDeadLetter = (v: unknown): v is DeadLetter =>
    typeof v === 'object' && v !== null && typeof (v as DeadLetter).topic === 'string' && typeof (v as DeadLetter).group === 'string';
  const delivered = (m: StreamMessage): StreamMessage => ({
    ...m,
    ...(m.topic !== undefined ? { topic: off(m.topic) } : {}),
    // A dead letter names the original topic and group: the prefixed ones, written by the adapter.
    ...(isDeadLetter(m.value) ? { value: { ...m.value, topic: off(m.value.topic), group: off(m.value.group) } } : {}),
  });
  return {
    publish: (topic, messages) => stream.publish(on(topic), messages),
    subscribe(topics, options: ConsumerOptions, handler) {
      const named = typeof topics === 'string' ? on(topics) : topics.map(on);
      const o: ConsumerOptions = {
        ...options,
        group: on(options.group),
        ...(options.deadLetter ? { deadLetter: { ...options.deadLetter, topic: on(options.deadLetter.topic) } } : {}),
      };
      return stream.subscribe(named, o, (batch, context) => handler(batch.map(delivered), context));
    },
    lag: async () => (await stream.lag()).map((l) => ({ ...l, topic: off(l.topic), group: off(l.group) })),
    ping: () => stream.ping(),
    close: () => stream.close(),
  };
}
