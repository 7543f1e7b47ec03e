/**
 * The gateway's per-document caches (gateway-caches.ts) bound entries and an estimate of the heap
 * their documents really hold (issue 34, M1). Apollo's default sizing, JSON length, counts a parsed
 * document at about a fifth of its heap; the estimate here must not fall below the heap measured
 * after full collections (gc exposed at run time), for small and token-heavy documents alike.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse, type DocumentNode } from 'graphql';
import { createGatewayCaches, documentBytes } from '../src/gateway-caches.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const small = (i: number) => `{ device(where: { name: { eq: "x${i}" } }) { id } }`;
/** ~1,900 tokens, inside the gateway's 2,000-token limit. */
const heavy = (i: number) => `{ device(where: { name: { in: [${Array.from({ length: 940 }, (_, j) => `"${i}-${j}"`).join(',')}] } }) { id } }`;

test.each([
  ['small', small, 2_000],
  ['token-heavy', heavy, 200],
] as const)('%s documents: the estimate covers the measured heap (Apollo counted about a fifth)', (_name, text, n) => {
  const docs: DocumentNode[] = [];
  const before = heap();
  for (let i = 0; i < n; i++) docs.push(parse(text(i)));
  const measured = (heap() - before) / n;
  const estimated = documentBytes(docs[0]!);
  const apollo = Buffer.byteLength(JSON.stringify(docs[0]));
  expect(estimated).toBeGreaterThanOrEqual(measured * 0.9);
  expect(apollo).toBeLessThan(measured / 2);
});

test('each cache keeps at most its entries and its estimated bytes, least recently used out first', async () => {
  const { documents } = createGatewayCaches({ maxEntries: 500, maxBytes: 8 * 2 ** 20 });
  for (let i = 0; i < 2_000; i++) await documents.set(`s${i}`, parse(small(i)));
  expect(documents.cache.size).toBe(500);
  expect(await documents.get('s1999')).toBeDefined();
  expect(await documents.get('s0')).toBeUndefined();
  for (let i = 0; i < 200; i++) await documents.set(`h${i}`, parse(heavy(i)));
  expect(documents.cache.bytes).toBeLessThanOrEqual(8 * 2 ** 20);
  expect(documents.cache.size).toBeLessThan(500);
});
