/**
 * GET /events/stream (Server-Sent Events) through `npm start`'s composition: events of REST
 * changes arrive in order; a client that reconnects with Last-Event-ID gets every event after that
 * one, none missing and none twice; type filters; refusals (no key 401, unknown type 400, unknown
 * Last-Event-ID 410). Waits poll with a 60 s limit.
 */
import { harnessForTests } from './harness.js';
import { until } from '@pylon/kit/testing';

const LIMIT = 90_000;
const h = harnessForTests({}, LIMIT);

interface Sse {
  events: { id: string; event: string; data: { type: string; data: Record<string, unknown> } }[];
  close(): void;
}

/** Opens the stream and parses events as they come. */
async function open(query = '', lastEventId?: string): Promise<Sse> {
  const ac = new AbortController();
  const res = await fetch(`${h.baseUrl}/events/stream${query}`, {
    headers: { 'x-service-apikey': h.key, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: ac.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const out: Sse = { events: [], close: () => ac.abort() };
  void (async () => {
    let buf = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const f = Object.fromEntries(
            block
              .split('\n')
              .filter((l) => !l.startsWith(':') && l.includes(': '))
              .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
          );
          if (f.id) out.events.push({ id: f.id, event: f.event!, data: JSON.parse(f.data!) });
        }
      }
    } catch {
      /* aborted */
    }
  })();
  return out;
}

const register = async (name: string) =>
  (
    (await (
      await fetch(`${h.baseUrl}/devices`, {
        method: 'POST',
        headers: { 'x-service-apikey': h.key, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      })
    ).json()) as { id: string }
  ).id;

test(
  'events arrive in order; Last-Event-ID resumes without gaps or repeats; type filters',
  async () => {
    const all = await open('?types=device.registered');
    const first = [await register('SSE 1'), await register('SSE 2'), await register('SSE 3')];
    await until('three events', () => all.events.length >= 3);
    expect(all.events.map((e) => e.data.data.device_id)).toEqual(first);
    expect(all.events.every((e) => e.event === 'device.registered')).toBe(true);

    // A client that saw only the first event reconnects after two more changes.
    const resumeFrom = all.events[0]!.id;
    const later = [await register('SSE 4'), await register('SSE 5')];
    await until('five events', () => all.events.length >= 5);
    const resumed = await open('?types=device.registered', resumeFrom);
    await until('the four after the first', () => resumed.events.length >= 4);
    await new Promise((r) => setTimeout(r, 500));
    expect(resumed.events.map((e) => e.data.data.device_id)).toEqual([...first.slice(1), ...later]);
    expect(resumed.events.map((e) => e.id)).toEqual(all.events.slice(1, 5).map((e) => e.id));
    all.close();
    resumed.close();
  },
  LIMIT,
);

test('refusals: no credentials 401, an unknown type 400, an unknown Last-Event-ID 410', async () => {
  expect((await fetch(`${h.baseUrl}/events/stream`)).status).toBe(401);
  const bad = await fetch(`${h.baseUrl}/events/stream?types=no.such`, { headers: { 'x-service-apikey': h.key } });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('types');
  const gone = await fetch(`${h.baseUrl}/events/stream`, { headers: { 'x-service-apikey': h.key, 'last-event-id': 'evt_unknown' } });
  expect(gone.status).toBe(410);
});

test('the stream and the webhook actions are in the served OpenAPI document (/docs reads it)', async () => {
  const doc = (await (await fetch(`${h.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> }>>;
  };
  const stream = doc.paths['/events/stream']?.get;
  expect(stream?.operationId).toBe('streamEvents');
  expect(Object.keys(stream?.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
  expect(doc.paths['/webhooks/{id}/rotate-secret']?.post?.operationId).toBe('rotateWebhookEndpointSecret');
  expect(doc.paths['/webhooks/{id}/test']?.post?.operationId).toBe('sendTestWebhookEvent');
  expect(doc.paths['/webhooks/{id}/redeliver']?.post?.operationId).toBe('redeliverWebhookEvents');
});

/** Opens a stream with `key` and answers its status, and a way to read what it sent until it ends. */
async function raw(key: string) {
  const ac = new AbortController();
  const res = await fetch(`${h.baseUrl}/events/stream`, { headers: { 'x-service-apikey': key }, signal: ac.signal });
  let text = '';
  let ended = false;
  if (res.status === 200) {
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
      } catch {
        /* aborted */
      }
      ended = true;
    })();
  } else await res.text();
  return { res, text: () => text, ended: () => ended, close: () => ac.abort() };
}

const newKey = async (name: string) => {
  const r = await h.gql('mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { key apiKey { id } } }', {
    variables: { i: { userId: 'demo-owner', name } },
  });
  return r.body.data!.createApiKey as { key: string; apiKey: { id: string } };
};

test(
  'issue 34, M2: at most 10 open streams per key (429 with Retry-After beyond); closing one frees its place',
  async () => {
    const { key } = await newKey('streams');
    const streams = [];
    for (let i = 0; i < 10; i++) {
      const s = await raw(key);
      expect(s.res.status).toBe(200);
      streams.push(s);
    }
    const over = await raw(key);
    expect(over.res.status).toBe(429);
    expect(Number(over.res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another key of the same account still opens one.
    const other = await raw((await newKey('other')).key);
    expect(other.res.status).toBe(200);
    other.close();
    streams.pop()!.close();
    await until('a place freed', async () => {
      const again = await raw(key);
      again.close();
      return again.res.status === 200;
    });
    for (const s of streams) s.close();
  },
  LIMIT,
);

test(
  'issue 34, M3: a stream ends within seconds of its key being revoked, with an error event; no later event reaches it',
  async () => {
    const { key, apiKey } = await newKey('revoked');
    const s = await raw(key);
    expect(s.res.status).toBe(200);
    const revoked = await h.gql('mutation($id: String!) { revokeApiKey(id: $id) { success } }', { variables: { id: apiKey.id } });
    expect(revoked.body.data!.revokeApiKey.success).toBe(true);
    const started = Date.now();
    await until('the stream ended', () => s.ended());
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(s.text()).toMatch(/event: error\ndata: .*UNAUTHENTICATED/);
    await register('after revocation');
    await new Promise((r) => setTimeout(r, 500));
    expect(s.text()).not.toContain('device.registered');
  },
  LIMIT,
);
