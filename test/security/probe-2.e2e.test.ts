/**
 * The second black-box probe (issue 20): each finding it broke, replayed against the all-in-one
 * server in production mode through its public interfaces (GraphQL, REST, /metrics), with the
 * probe's own requests. Findings 10 and 11 (clients written from the spec) are held by
 * gateway/test/devices.e2e.test.ts and services/datatables/test/rows.subgraph.test.ts; the deep
 * `where` property test over every filter input type is input-depth.property.test.ts.
 */
import { createHash } from 'node:crypto';
import { startHarness, type Harness } from '../../gateway/test/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ NODE_ENV: 'production' });
}, 60_000);
afterAll(() => h?.stop());

const rest = (path: string, init: RequestInit = {}) =>
  fetch(`${h.baseUrl}${path}`, { ...init, headers: { 'x-service-apikey': h.key, ...(init.headers as Record<string, string>) } });

test('finding 1: exportDataTableRows past 10,000 rows is refused, pointing at the streamed REST export', async () => {
  const made = await h.gql('mutation { createDataTable(input: { name: "Big", columns: [{ name: "N", key: "n", type: NUMBER }] }) { table { id } } }');
  const t = made.body.data!.createDataTable.table.id as string;
  const csv = `n\n${Array.from({ length: 10_001 }, (_, i) => i).join('\n')}\n`;
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'big.csv');
  const imported = await rest(`/datatables/${t}/rows/import`, { method: 'POST', body: form });
  expect(imported.status).toBeLessThan(300);
  // Above the job threshold the import runs as a job: wait for it (issue 20, heavy work as jobs).
  if (imported.status === 202) {
    const { id } = (await imported.json()) as { id: string };
    for (const deadline = Date.now() + 60_000; ;) {
      const job = (await (await rest(`/jobs/${id}`)).json()) as { state: string };
      if (job.state === 'succeeded') break;
      if (Date.now() > deadline || job.state === 'failed') throw new Error(`import job: ${JSON.stringify(job)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const aliases = await h.gql(
    `query($t: String!) { a: exportDataTableRows(tableId: $t) b: exportDataTableRows(tableId: $t) c: exportDataTableRows(tableId: $t) }`,
    {
      variables: { t },
    },
  );
  expect(aliases.body.data).toEqual({ a: null, b: null, c: null });
  expect(aliases.body.errors![0]!.message).toMatch(/at most 10000 rows .*GET \/datatables\/.+\/rows\/export/);
  const streamed = await rest(`/datatables/${t}/rows/export`);
  expect(streamed.status).toBe(200);
  expect((await streamed.text()).split('\r\n').filter(Boolean)).toHaveLength(10_002);
}, 120_000);

test('finding 3: the SDL needs a key in production', async () => {
  expect((await fetch(`${h.baseUrl}/graphql/?sdl`)).status).toBe(401);
  expect((await fetch(`${h.baseUrl}/graphql?sdl`)).status).toBe(401);
  expect((await rest('/graphql?sdl')).status).toBe(200);
});

test.each(['device', 'media'])(
  'finding 4: a `where` variable nested 1,000 (and 10,000) deep on %s is a 400 BAD_USER_INPUT, not a stack overflow',
  async (field) => {
    const type = field === 'device' ? 'DeviceFilterInput' : 'MediaFilterInput';
    for (const depth of [1000, 10_000]) {
      // Written by hand: JSON.stringify itself recurses (and overflows at these depths).
      const w = `${'{"and":['.repeat(depth)}{}${']}'.repeat(depth)}`;
      const res = await fetch(`${h.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-apikey': h.key },
        body: `{"query":${JSON.stringify(`query($w: ${type}) { ${field}(where: $w) { id } }`)},"variables":{"w":${w}}}`,
      });
      const text = await res.text();
      expect([depth, res.status, (JSON.parse(text) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code]).toEqual([
        depth,
        400,
        'BAD_USER_INPUT',
      ]);
      expect(text).not.toMatch(/Maximum call stack|INTERNAL_SERVER_ERROR/);
    }
  },
);

test('finding 5: list sizes weigh in the cost; the message names the cost and the limit', async () => {
  const fields =
    'id name tags groupId groupName orgId timezone notes registrationKey isOnline createdOn updatedOn location { city } deviceType { name } pingData { cpuUsage }';
  const aliases = await h.gql(`{ ${Array.from({ length: 10 }, (_, i) => `a${i}: device(limit: 1000) { ${fields} }`).join(' ')} }`);
  expect(aliases.status).toBe(400);
  expect(aliases.body.errors![0]!.message).toMatch(/^Query cost 40000 exceeds the limit of 5000/);
  const nested = await h.gql('{ schedule(limit: 1000) { id devices { id name pingData { cpuUsage } } } }');
  expect(nested.status).toBe(400);
  expect(nested.body.errors![0]!.message).toMatch(/Query cost \d+ exceeds the limit of 5000/);
  // Through a variable too.
  const viaVariable = await h.gql(
    'query($n: Int) { a: device(limit: $n) { location { city } } b: device(limit: $n) { location { city } } c: device(limit: $n) { id } d: device(limit: $n) { id } }',
    {
      variables: { n: 1000 },
    },
  );
  expect(viaVariable.status).toBe(400);
  // Ordinary queries still run.
  expect((await h.gql(`{ device(limit: 100) { ${fields} } schedule { id devices { id } } }`)).status).toBe(200);
});

test.each(['x-real-ip', 'via', 'x-forwarded-host', 'x-forwarded-for', 'forwarded'])(
  'finding 6: /metrics refuses a loopback caller relayed by a proxy that sets only %s',
  async (header) => {
    expect((await fetch(`${h.baseUrl}/metrics`, { headers: { [header]: header === 'via' ? '1.1 proxy' : '203.0.113.7' } })).status).toBe(404);
    // The local operator (no proxy) still reads it.
    expect((await fetch(`${h.baseUrl}/metrics`)).status).toBe(200);
  },
);

async function upload(bytes: Buffer, name: string, type: string) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  const res = await rest('/media', { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string; field?: string } } };
}

test('finding 7: three bytes FF D8 FF are refused as an image (415 with the reason)', async () => {
  const r = await upload(Buffer.from([0xff, 0xd8, 0xff]), 'x.jpg', 'image/jpeg');
  expect(r.status).toBe(415);
  expect(r.body.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', field: 'file', message: expect.stringMatching(/cannot be decoded/) });
});

test('finding 8: a client-chosen registration key of 32 identical characters is refused', async () => {
  for (const key of ['a'.repeat(32), 'ab'.repeat(16), '0123456789abcdef0123456789abcdef']) {
    const res = await rest('/devices', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Weak key', registration_key: key }),
    });
    expect([key, res.status]).toEqual([key, 400]);
    expect(JSON.stringify(await res.json())).toMatch(/registration/i);
  }
  const strong = createHash('sha256').update('probe-2').digest('hex').slice(0, 40);
  expect(
    (
      await rest('/devices', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Own key', registration_key: strong }),
      })
    ).status,
  ).toBe(201);
});

test('finding 9: SVG is refused as documented, saying why; a wrong persisted-query hash is BAD_REQUEST', async () => {
  const svg = await upload(
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><script>alert(1)</script></svg>'),
    'a.svg',
    'image/svg+xml',
  );
  expect(svg.status).toBe(415);
  expect(svg.body.error!.message).toMatch(/SVG files are not accepted/);
  const openapi = (await (await fetch(`${h.baseUrl}/openapi.json`)).json()) as { paths: Record<string, { post?: { description?: string } }> };
  expect(openapi.paths['/media']!.post!.description).toMatch(/SVG, refused because it can carry scripts/);
  const res = await fetch(`${h.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-apikey': h.key },
    body: JSON.stringify({ query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }),
  });
  expect(res.status).toBe(400);
  expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('BAD_REQUEST');
});
