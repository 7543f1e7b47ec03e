/**
 * The self-check's prefixed stream (launcher/src/verify/prefixed-stream.ts), which keeps a verify
 * run on Kafka to topics and groups of its own: the whole stream contract passes through it (over
 * the in-memory stream; Kafka does not run here), dead letters and lag name topics as the caller
 * did, and the stream underneath sees only prefixed names (what the clean-up deletes).
 */
import { createMemoryStream } from '@pylon/adapters/memory';
import type { EventStream } from '@pylon/kit';
import { streamContract } from '@pylon/kit/contract/stream.contract';
import { waitFor } from '@pylon/kit/contract/wait';
import { prefixedStream } from '../src/verify/prefixed-stream.js';

const PREFIX = 'pylon-verify-test-';

streamContract('memory, prefixed', () => prefixedStream(createMemoryStream(), PREFIX));

test('the stream underneath sees only prefixed topics and groups', async () => {
  const inner = createMemoryStream();
  const seen = { topics: [] as string[], groups: [] as string[] };
  const spy: EventStream = {
    ...inner,
    publish: (topic, messages) => (seen.topics.push(topic), inner.publish(topic, messages)),
    subscribe: (topics, options, handler) => {
      seen.topics.push(...(typeof topics === 'string' ? [topics] : topics));
      seen.groups.push(options.group);
      if (options.deadLetter) seen.topics.push(options.deadLetter.topic);
      return inner.subscribe(topics, options, handler);
    },
    lag: () => inner.lag(),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  const stream = prefixedStream(spy, PREFIX);
  const got: unknown[] = [];
  await stream.subscribe(
    ['telemetry.plays', 'push.events'],
    { group: 'webhooks', maxWaitMs: 0, deadLetter: { topic: 'telemetry.dead-letter', maxAttempts: 1 } },
    async (b) => {
      got.push(...b.map((m) => [m.topic, m.value]));
    },
  );
  await stream.publish('push.events', [{ value: 'e' }]);
  await waitFor(() => got.length === 1, 5_000, 'the message');
  expect(got).toEqual([['push.events', 'e']]);
  expect(seen.topics.every((t) => t.startsWith(PREFIX))).toBe(true);
  expect(seen.groups).toEqual([`${PREFIX}webhooks`]);
  expect((await stream.lag()).every((l) => !l.topic.startsWith(PREFIX) && !l.group.startsWith(PREFIX))).toBe(true);
  await stream.close();
});
