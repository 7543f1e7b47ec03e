/**
 * Calls with the same key share one execution. The first runs at once; calls that arrive while it
 * runs wait together for one follow-up execution, started when it ends. So every caller's answer is
 * produced by an execution that began after the caller asked: never a value read before the call
 * (a manifest that read its invalidation generation, then asks for content, gets content at least
 * as new as that generation), and at most one execution per key runs at a time.
 *
 * Keys exist only while an execution runs or waits: nothing is cached, nothing to bound beyond the
 * callers themselves.
 */
export type Coalesced<V> = (key: string, run: () => Promise<V>) => Promise<V>;

interface Pending<V> {
  run: () => Promise<V>;
  promise: Promise<V>;
  resolve(v: V): void;
  reject(e: unknown): void;
}

export function coalesce<V>(): Coalesced<V> {
  /** Per key: the follow-up waiting for the running execution (undefined: none waits yet). */
  const keys = new Map<string, { next?: Pending<V> }>();

  const start = (key: string, state: { next?: Pending<V> }, run: () => Promise<V>): Promise<V> => {
    const running = Promise.resolve().then(run);
    void running
      .catch(() => undefined)
      .then(() => {
        const next = state.next;
        if (!next) {
          keys.delete(key);
          return;
        }
        delete state.next;
        start(key, state, next.run).then(next.resolve, next.reject);
      });
    return running;
  };

  return (key, run) => {
    const state = keys.get(key);
    if (!state) {
      const fresh = {};
      keys.set(key, fresh);
      return start(key, fresh, run);
    }
    if (!state.next) {
      let resolve!: (v: V) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<V>((res, rej) => ((resolve = res), (reject = rej)));
      state.next = { run, promise, resolve, reject };
    }
    return state.next.promise;
  };
}
