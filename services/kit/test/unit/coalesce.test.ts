/**
 * coalesce (src/coalesce.ts) and the subgraph reads built on it (sharedSubgraphQuery,
 * src/http/query-subgraph.ts): identical calls in flight at once share one execution, and no caller
 * gets a value read before it asked.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { coalesce, coalesceLookups, devicePrincipal, InternalTokens, INTERNAL_TOKEN_HEADER, sharedSubgraphQuery } from '../../src/index.js';

/** A run the test finishes by hand: `done(v)` settles the execution it stands for. */
function controlled<V>() {
  const started: { resolve(v: V): void; reject(e: unknown): void }[] = [];
  const run = () => new Promise<V>((resolve, reject) => started.push({ resolve, reject }));
  return { run, started };
}
const flush = () => new Promise((r) => setImmediate(r));

test('the first call runs at once; calls during it share one follow-up, started when it ends', async () => {
  const shared = coalesce<number>();
  const { run, started } = controlled<number>();
  const first = shared('k', run);
  await flush();
  expect(started).toHaveLength(1);
  const during = Array.from({ length: 10 }, () => shared('k', run));
  await flush();
  expect(started).toHaveLength(1); // the follow-up waits for the running one
  started[0]!.resolve(1);
  expect(await first).toBe(1);
  await flush();
  expect(started).toHaveLength(2);
  started[1]!.resolve(2);
  expect(await Promise.all(during)).toEqual(Array(10).fill(2));
  // Nothing is kept: the next call runs anew.
  const later = shared('k', run);
  await flush();
  expect(started).toHaveLength(3);
  started[2]!.resolve(3);
  expect(await later).toBe(3);
});

test('no caller gets a value read before it asked', async () => {
  const shared = coalesce<number>();
  let value = 0;
  const read = async () => {
    const v = value; // read when the execution starts
    await flush();
    return v;
  };
  const before = shared('k', read);
  await flush(); // the first execution has read 0
  value = 1; // an edit lands while it runs
  const after = shared('k', read); // asked after the edit
  expect(await before).toBe(0);
  expect(await after).toBe(1);
});

test('a failure reaches the callers of that execution only; the follow-up still runs; keys do not mix', async () => {
  const shared = coalesce<string>();
  const { run, started } = controlled<string>();
  const first = shared('a', run);
  const follow = shared('a', run);
  const other = shared('b', run);
  await flush();
  expect(started).toHaveLength(2); // 'a' and 'b' each run at once
  started[0]!.reject(new Error('down'));
  await expect(first).rejects.toThrow('down');
  await flush();
  started[1]!.resolve('b');
  started[2]!.resolve('a again');
  expect(await follow).toBe('a again');
  expect(await other).toBe('b');
});

describe('sharedSubgraphQuery over HTTP', () => {
  let server: Server;
  let url: string;
  const seen: { account: string; body: string; key?: string }[] = [];
  const tokens = new InternalTokens('s'.repeat(32));
  let release: () => void = () => undefined;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        void tokens.verify(String(req.headers[INTERNAL_TOKEN_HEADER])).then((p) => {
          seen.push({ account: p.accountId, body, ...(p.credential?.kind === 'api-key' ? { key: p.credential.id } : {}) });
          // The first answer waits until the test lets it go, so the others arrive while it runs.
          const answer = () =>
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { account: { timezone: `tz-of-${p.accountId}` } } }));
          if (seen.length === 1) release = answer;
          else answer();
        });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  test("one account's screens share a request; another account, or another credential, asks for its own", async () => {
    const ask = sharedSubgraphQuery();
    const q = (account: string, device: string) =>
      ask<{ account: { timezone: string } }>({ url, tokens }, devicePrincipal(account, device), '{ account { timezone } }', {}, 'the account');
    const first = q('acc-1', 'd0');
    while (seen.length < 1) await new Promise((r) => setTimeout(r, 5));
    const wave = Array.from({ length: 20 }, (_, i) => q('acc-1', `d${i + 1}`));
    const elsewhere = q('acc-2', 'x1');
    const byKey = ask<{ account: { timezone: string } }>(
      { url, tokens },
      { ...devicePrincipal('acc-1', 'k'), credential: { kind: 'api-key', id: 'key-1' } },
      '{ account { timezone } }',
      {},
      'the account',
    );
    release();
    const answers = await Promise.all([first, ...wave, elsewhere]);
    expect((await byKey).account.timezone).toBe('tz-of-acc-1');
    expect(answers.slice(0, 21).every((a) => a.account.timezone === 'tz-of-acc-1')).toBe(true);
    expect(answers[21]!.account.timezone).toBe('tz-of-acc-2');
    // The first request, one follow-up for the 20 screens that asked during it, the API key's own, and acc-2's own.
    expect(seen.filter((s) => s.account === 'acc-1' && !s.key)).toHaveLength(2);
    expect(seen.filter((s) => s.key === 'key-1')).toHaveLength(1);
    expect(seen.filter((s) => s.account === 'acc-2')).toHaveLength(1);
  });
});

test('lookups by id: ids asked during a lookup are looked up together; each caller gets its own', async () => {
  const lookups: string[][] = [];
  let release: () => void = () => undefined;
  const lookup = async (ids: string[]) => {
    lookups.push(ids);
    if (lookups.length === 1) await new Promise<void>((r) => (release = r));
    return new Map(ids.filter((id) => id !== 'gone').map((id) => [id, `record ${id}`]));
  };
  const shared = coalesceLookups<string>(3);
  const first = shared('acc', ['a'], lookup);
  await flush();
  const b = shared('acc', ['b'], lookup);
  const cd = shared('acc', ['c', 'gone'], lookup);
  const tooMany = shared('acc', ['x', 'y'], lookup); // b, c, gone, x, y: more than 3, so it asks alone at once
  await flush();
  expect(lookups).toEqual([['a'], ['x', 'y']]);
  release();
  expect(await first).toEqual(new Map([['a', 'record a']]));
  expect(await b).toEqual(new Map([['b', 'record b']]));
  expect(await cd).toEqual(new Map([['c', 'record c']]));
  expect(await tooMany).toEqual(
    new Map([
      ['x', 'record x'],
      ['y', 'record y'],
    ]),
  );
  expect(lookups).toEqual([['a'], ['x', 'y'], ['b', 'c', 'gone']]);
});
