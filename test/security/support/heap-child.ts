/**
 * The all-in-one server (startHarness: `npm start`'s composition) in a child process run with
 * --expose-gc, for heap tests: it tells its parent where it listens, and answers `heap` with its
 * heap after two full collections.
 */
import { startHarness } from '../../../gateway/test/harness.js';

const h = await startHarness(JSON.parse(process.env.HEAP_CHILD_ENV ?? '{}') as Record<string, string>);
const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', (m) => {
  if (m === 'heap') {
    gc?.();
    gc?.();
    process.send!({ heapUsed: gc ? process.memoryUsage().heapUsed : -1 });
  } else if (m === 'stop') void h.stop().then(() => process.exit(0));
});
process.send!({ baseUrl: h.baseUrl, key: h.key });
