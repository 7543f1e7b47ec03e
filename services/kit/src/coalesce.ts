/**
 * Identical calls in flight at once share one execution. The first runs at once; calls that arrive
 * while it runs wait together for one follow-up execution, started when it ends. So every caller's
 * answer is produced by an execution that began after the caller asked: never a value read before
 * the call (a manifest that read its invalidation generation, then asks for content, gets content at
 * least as new as that generation), and at most one execution per key runs at a time.
 *
 * Keys exist only while an execution runs or waits: nothing is cached, nothing to bound beyond the
 * callers themselves.
 */
export type Coalesced<V> = (key: string, run: () => Promise<V>) => Promise<V>;

/** Calls with the same key share one execution (the first follower's `run` serves the follow-up). */
export function coalesce<V>(): Coalesced<V> {
  const shared = followUps<() => Promise<V>, V>(
    (run) => run(),
    (waiting) => waiting,
  );
  return (key, run) => shared(key, run);
}

/**
 * The same for lookups by id: calls with the same key that arrive while one lookup runs are joined
 * into one follow-up lookup of all their ids (at most `maxIds`: a call that would pass it looks up
 * its own ids at once), and each caller gets the answers for its own ids.
 */
export type CoalescedLookup<V> = (key: string, ids: readonly string[], lookup: (ids: string[]) => Promise<Map<string, V>>) => Promise<Map<string, V>>;

export function coalesceLookups<V>(maxIds: number): CoalescedLookup<V> {
  type Batch = { ids: ReadonlySet<string>; lookup: (ids: string[]) => Promise<Map<string, V>> };
  const shared = followUps<Batch, Map<string, V>>(
    (b) => b.lookup([...b.ids]),
    (waiting, b) => {
      const ids = new Set([...waiting.ids, ...b.ids]);
      return ids.size > maxIds ? undefined : { ids, lookup: waiting.lookup };
    },
  );
  return async (key, ids, lookup) => {
    const all = await shared(key, { ids: new Set(ids), lookup });
    return new Map(ids.flatMap((id) => (all.has(id) ? [[id, all.get(id)!] as const] : [])));
  };
}

/**
 * The machinery of both: per key, the running execution and the one waiting to follow it, whose
 * argument `join` merges from each caller that arrives meanwhile (undefined: this caller cannot join,
 * it runs alone, at once).
 */
function followUps<A, V>(run: (arg: A) => Promise<V>, join: (waiting: A, arg: A) => A | undefined): (key: string, arg: A) => Promise<V> {
  interface Waiting {
    arg: A;
    done: Promise<V>;
    resolve(v: V): void;
    reject(e: unknown): void;
  }
  const keys = new Map<string, { next?: Waiting }>();

  const start = (key: string, state: { next?: Waiting }, arg: A): Promise<V> => {
    const running = Promise.resolve(arg).then(run);
    void running
      .catch(() => undefined)
      .then(() => {
        const next = state.next;
        if (!next) {
          keys.delete(key);
          return;
        }
        delete state.next;
        start(key, state, next.arg).then(next.resolve, next.reject);
      });
    return running;
  };

  return (key, arg) => {
    const state = keys.get(key);
    if (!state) {
      const fresh = {};
      keys.set(key, fresh);
      return start(key, fresh, arg);
    }
    if (!state.next) {
      let resolve!: (v: V) => void;
      let reject!: (e: unknown) => void;
      const done = new Promise<V>((res, rej) => ((resolve = res), (reject = rej)));
      state.next = { arg, done, resolve, reject };
      return done;
    }
    const joined = join(state.next.arg, arg);
    if (joined === undefined) return run(arg);
    state.next.arg = joined;
    return state.next.done;
  };
}
