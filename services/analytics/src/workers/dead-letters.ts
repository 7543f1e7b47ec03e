/**
 * Replays dead letters: every row of `dead_letters` not replayed yet goes back to its original
 * topic, so the ingest tries it again with whatever fix an operator deployed, and is then marked
 * replayed (written again with replayed = 1). Replayed records keep their event ids: one that had
 * in fact been stored collapses with it, and a replay interrupted between publishing and marking
 * only republishes again. Read what is there first: `SELECT * FROM dead_letters FINAL WHERE replayed = 0`.
 */
import type { AnalyticsStore, EventStream, Logger } from '@pylon/kit';

export interface ReplayResult {
  replayed: number;
  /** Per original topic. */
  topics: Record<string, number>;
}

interface Row {
  id: string;
  topic: string;
  consumer_group: string;
  position: string;
  key: string;
  value: string;
  error: string;
  attempts: number;
  dead_lettered_at: string;
}

const PAGE = 5000;

export async function replayDeadLetters(deps: { stream: EventStream; analytics: AnalyticsStore; logger: Logger }): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: 0, topics: {} };
  for (;;) {
    const rows = await deps.analytics.query<Row>(
      `SELECT id, topic, consumer_group, position, key, value, error, attempts, formatDateTime(dead_lettered_at, '%Y-%m-%dT%H:%i:%S.%fZ') AS dead_lettered_at
FROM dead_letters FINAL WHERE replayed = 0 ORDER BY dead_lettered_at, id LIMIT ${PAGE}`,
    );
    if (rows.length === 0) break;
    const byTopic = new Map<string, { key?: string; value: unknown }[]>();
    for (const r of rows) {
      let value: unknown;
      try {
        value = JSON.parse(r.value);
      } catch {
        value = r.value;
      }
      const list = byTopic.get(r.topic) ?? [];
      list.push({ ...(r.key ? { key: r.key } : {}), value });
      byTopic.set(r.topic, list);
    }
    for (const [topic, messages] of byTopic) {
      await deps.stream.publish(topic, messages);
      result.topics[topic] = (result.topics[topic] ?? 0) + messages.length;
    }
    await deps.analytics.insert(
      'dead_letters',
      rows.map((r) => ({ ...r, replayed: 1 })),
    );
    result.replayed += rows.length;
    if (rows.length < PAGE) break;
  }
  deps.logger.info({ ...result }, 'dead letters replayed');
  return result;
}
