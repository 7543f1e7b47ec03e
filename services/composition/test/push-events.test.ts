/**
 * The push-event producer a composition root hands its subgraphs (src/push-events.ts): nothing
 * without a stream; with one, events reach the `push.events` topic, and the producer registered
 * with the backends' onClose flushes what it still holds when they close (in reverse order of
 * registration, so a subgraph registered after it stops writing first).
 */
import { createMemoryStream } from '@pylon/adapters/memory';
import { createLogger, PUSH_EVENTS_TOPIC, type StreamMessage } from '@pylon/kit';
import { closingPushEvents } from '../src/push-events.js';

const logger = createLogger({ level: 'silent', name: 'push-events-test' });
const device = { device_id: 'd1', device_group_id: null, device_tags: [], name: 'Lobby' };

test('without a stream there are no push events and nothing to close', () => {
  const closers: (() => Promise<void>)[] = [];
  expect(closingPushEvents({ onClose: (c) => closers.push(c) }, logger)).toEqual({});
  expect(closers).toHaveLength(0);
});

test('with a stream: an event emitted before close is on the topic once the backends close', async () => {
  const inner = createMemoryStream();
  const published: { topic: string; messages: StreamMessage[] }[] = [];
  const stream = {
    ...inner,
    publish: async (topic: string, messages: StreamMessage[]) => (published.push({ topic, messages }), inner.publish(topic, messages)),
  };
  const closers: (() => Promise<void>)[] = [];
  const { pushEvents } = closingPushEvents({ stream, onClose: (c) => closers.push(c) }, logger);
  expect(closers).toHaveLength(1);

  pushEvents!.emit('acc-1', 'device.registered', device);
  // The backends close in reverse order of registration: the producer's close flushes the batch.
  for (const close of closers.reverse()) await close();

  expect(published.map((p) => p.topic)).toEqual([PUSH_EVENTS_TOPIC]);
  const events = published.flatMap((p) => p.messages.map((m) => m.value));
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({ type: 'device.registered', account_id: 'acc-1', data: device });
  await inner.close();
});
