/**
 * Issue 34, M1: every document a caller invents lands in the gateway's caches (parsed documents,
 * query plans, the single-fetch plans kept beside them) and, when it reaches a subgraph, in that
 * subgraph's caches. Distinct documents (each differing in a literal) through real HTTP to the
 * all-in-one server in production mode, in a child process run with --expose-gc: after the caches
 * fill (500 entries each by default), its heap after full collections stays flat and under a stated
 * ceiling. Before the gateway's caches were bounded by entries and estimated heap
 * (gateway-caches.ts) it grew by ~30 KB per document (Apollo's stores are sized by JSON length,
 * about a fifth of a document's heap, with no entry limit).
 *
 * 2,000 documents by default (four times the entry bound; ~60 s on a loaded 2-core machine);
 * HEAP_DOCUMENTS=10000 runs the full count (~5 minutes there).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const DOCUMENTS = Number(process.env.HEAP_DOCUMENTS ?? 2_000);
/** Heap growth allowed over the warmed-up server: the gateway's caches (32 MiB estimated each, ~30 MiB of real heap here) and the subgraphs', with room for noise. */
const CEILING_MIB = 64;
/** Growth allowed over the second half of the documents, once every cache is full: noise only. */
const SETTLED_MIB = 8;
const STEP = DOCUMENTS / 4;
let child: ChildProcess;
let server: { baseUrl: string; key: string };
const replies: ((m: Record<string, unknown>) => void)[] = [];
const ask = (m: string) =>
  new Promise<Record<string, unknown>>((resolve) => {
    replies.push(resolve);
    child.send(m);
  });

beforeAll(async () => {
  child = fork(fileURLToPath(new URL('./support/heap-child.ts', import.meta.url)), {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    env: {
      ...process.env,
      // The limits are not what this test is about: room for 10,000 new documents from one key.
      HEAP_CHILD_ENV: JSON.stringify({ NODE_ENV: 'production', RATE_LIMIT_POINTS: '1000000', RATE_LIMIT_PLAN_POINTS: '1000000' }),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', (m: Record<string, unknown>) => replies.shift()?.(m));
  // Generous: a busy 2-core machine starts the whole server slowly.
  server = (await new Promise((resolve, reject) => {
    replies.push(resolve as never);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  })) as typeof server;
}, 90_000);

afterAll(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send('stop');
  const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  await exited;
  clearTimeout(killer);
}, 60_000);

/**
 * Document i: its where literal differs every tenth document (a new subgraph document, too); a
 * variable's default (a list of 20 names, ~80 tokens) differs every time, so each is a new text,
 * a new parse, a new plan.
 */
const document = (i: number) =>
  `query($names: [String!] = [${Array.from({ length: 20 }, (_, j) => `"n${i}-${j}"`).join(', ')}]) ` +
  `{ device(where: { name: { in: $names }, groupName: { eq: "g${i - (i % 10)}" } }) { id name } }`;

async function send(from: number, to: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      const res = await fetch(`${server.baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-apikey': server.key },
        body: JSON.stringify({ query: document(i) }),
      });
      const body = (await res.json()) as { errors?: unknown };
      if (res.status !== 200 || body.errors) throw new Error(`document ${i}: ${res.status} ${JSON.stringify(body)}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

const heapMiB = async () => Number((await ask('heap')).heapUsed) / 2 ** 20;

test(`${DOCUMENTS.toLocaleString('en')} distinct documents: the heap settles (under ${SETTLED_MIB} MiB over the second half) under ${CEILING_MIB} MiB above the warmed-up server`, async () => {
  await send(-200, 0);
  const base = await heapMiB();
  expect(base).toBeGreaterThan(0); // gc exposed in the child
  const started = Date.now();
  const grown: number[] = [];
  for (let at = 0; at < DOCUMENTS; at += STEP) {
    await send(at, at + STEP);
    grown.push((await heapMiB()) - base);
  }
  const seen = grown.map((g, k) => `${(k + 1) * STEP}: +${g.toFixed(1)}`).join(', ');
  console.log(`heap over the warmed-up server (${base.toFixed(1)} MiB), MiB after n documents: ${seen}; ${((Date.now() - started) / 1000).toFixed(1)} s`);
  expect(Math.max(...grown)).toBeLessThan(CEILING_MIB);
  expect(grown[3]! - grown[1]!).toBeLessThan(SETTLED_MIB);
}, 300_000);
