/**
 * One consumer group per consumer role (issue 33, row 2). The ingest's subscriptions, as it really
 * makes them (recorded from startIngest over the embedded stream), are joined into their Kafka
 * groups by kafkajs's own consumer-group code and RoundRobinAssigner (kafka-group.helpers.ts), as
 * two ingest replicas would be, with each member leading in turn: every partition of every
 * subscribed topic must be read by some member. With the telemetry and the dead-letter consumers in
 * one group, the leader assigns only what it subscribed itself and a member drops what it did not
 * subscribe to: partitions nobody reads.
 */
import { createLogger, TOPIC_TABLES, DEAD_LETTER_TOPIC, type AnalyticsStore, type EventStream } from '@pylon/kit';
import { createMemoryStream } from '@pylon/adapters/memory';
import { startIngest } from '../src/workers/ingest.js';
import { assignedPartitions, type Member } from '../../adapters/test/kafka-group.helpers.js';
import { withChdbStore } from './ingest.helpers.js';

let store: AnalyticsStore;
withChdbStore('pylon-ingest-groups-', (s) => (store = s));
const logger = createLogger({ level: 'silent' });
const PARTITIONS = 3; // the adapter's default per topic

/** The (group, topics) of each subscription one ingest process makes. */
async function subscriptionsOfOneIngest(): Promise<{ group: string; topics: string[] }[]> {
  const inner = createMemoryStream();
  const made: { group: string; topics: string[] }[] = [];
  const stream: EventStream = {
    ...inner,
    subscribe(topics, options, handler) {
      made.push({ group: options.group, topics: typeof topics === 'string' ? [topics] : [...topics] });
      return inner.subscribe(topics, options, handler);
    },
  };
  const ingest = await startIngest({ stream, analytics: store, logger });
  await ingest.close();
  await inner.close();
  return made;
}

test('with two ingest replicas, kafkajs assigns every partition of every topic to a member of its group, whichever member leads', async () => {
  const replicas = [await subscriptionsOfOneIngest(), await subscriptionsOfOneIngest()];
  const byGroup = new Map<string, Member[]>();
  replicas.forEach((subs, r) =>
    subs.forEach((s, i) => byGroup.set(s.group, [...(byGroup.get(s.group) ?? []), { name: `replica${r}/consumer${i}`, topics: s.topics }])),
  );
  const allTopics = [...Object.keys(TOPIC_TABLES), DEAD_LETTER_TOPIC];
  const partitions = Object.fromEntries(allTopics.map((t) => [t, PARTITIONS]));
  const unread: string[] = [];
  for (const [group, members] of byGroup) {
    const wanted = [...new Set(members.flatMap((m) => m.topics))].flatMap((t) => Array.from({ length: PARTITIONS }, (_, p) => `${t}:${p}`));
    // Each member leads once (the broker makes the first to join the leader).
    for (let lead = 0; lead < members.length; lead++) {
      const order = [...members.slice(lead), ...members.slice(0, lead)];
      const read = new Set([...(await assignedPartitions(order, partitions)).values()].flat());
      const missing = wanted.filter((p) => !read.has(p));
      if (missing.length)
        unread.push(`group ${group}, ${order[0]!.name} leading: ${missing.length} of ${wanted.length} partitions unread (${missing.join(' ')})`);
    }
  }
  expect(unread).toEqual([]);
  // Every topic the ingest reads is subscribed by someone.
  expect(new Set(replicas[0]!.flatMap((s) => s.topics))).toEqual(new Set(allTopics));
}, 60_000);
