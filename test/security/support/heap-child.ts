/**
 * The all-in-one server (startHarness: `npm start`'s composition) in a child process run with
 * --expose-gc, for heap tests: it tells its parent where it listens, answers `heap` with its heap
 * after two full collections (in all and per V8 space), and `{ snapshot: file }` by writing a heap
 * snapshot there (for finding what a growth is made of: compare two with Chrome DevTools' Comparison
 * view). A snapshot first runs V8's memory-reducing collection, which also empties its compilation
 * cache: what only that cache holds (graphql-jit's generated functions did) is in neither snapshot;
 * run the child with --trace-gc-object-stats to see it by V8 type.
 */
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { startHarness } from '../../../gateway/test/harness.js';

const h = await startHarness(JSON.parse(process.env.HEAP_CHILD_ENV ?? '{}') as Record<string, string>);
const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', (m: unknown) => {
  if (m === 'heap') {
    gc?.();
    gc?.();
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
    process.send!({ heapUsed: gc ? process.memoryUsage().heapUsed : -1, spaces });
  } else if (m === 'stop') void h.stop().then(() => process.exit(0));
  else if (typeof m === 'object' && m && 'snapshot' in m) process.send!({ snapshot: writeHeapSnapshot(String(m.snapshot)) });
});
process.send!({ baseUrl: h.baseUrl, key: h.key });
