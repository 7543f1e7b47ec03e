/**
 * Ends the process now, for the forced exits of a shutdown (its grace period ran out, or a second
 * Ctrl-C). `process.exit()` is not enough there: it joins libuv's thread pool first, and lmdb-js's
 * writer thread, when a write transaction is waiting for its JavaScript callback, waits for a
 * callback the exiting thread will never run, so the process hangs for ever (lmdb-js issue #336,
 * seen here when a benchmark exited with writes in flight). A signal cannot be waited on: the
 * process ends with SIGKILL's status (137 from a shell, `signal: 'SIGKILL'` to a parent), after the
 * reason has been written. Nothing acknowledged is lost: acknowledged records are durable before
 * their answer (the kill -9 tests hold that).
 */
export function forceExit(reason: string): never {
  process.stderr.write(`${reason}\n`);
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL is delivered before kill() returns to a process signalling itself; this is unreachable.
  throw new Error('SIGKILL did not end the process');
}
