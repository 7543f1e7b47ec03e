/**
 * Web player fleet: N simulated /play screens against one server, each doing what the page does over
 * HTTP: load /play/ and its script, fetch its manifest, then long-poll `POST /player/{key}/ping?wait=25`
 * and refetch the manifest (If-None-Match) whenever a ping names a new version. Meanwhile a schedule
 * naming every screen is edited `edits` times; for each edit, the time until every screen holds the
 * new manifest (fan-out p50/p95/max over screens). Errors (non-2xx/304, network) are counted.
 */
export interface WebPlayerFleetOptions {
  baseUrl: string;
  key: string;
  screens: number;
  edits: number;
  /** Ends the server's waiting long-polls (the devices runtime's releaseWaiters) so the screens stop at once. */
  releaseWaiters(): void;
}

export interface WebPlayerFleetResult {
  loadMs: number;
  p50: number;
  p95: number;
  worst: number;
  errors: number;
}

export async function webPlayerFleet(o: WebPlayerFleetOptions): Promise<WebPlayerFleetResult> {
  const headers = { 'x-service-apikey': o.key, 'content-type': 'application/json' };
  const gql = async (query: string, variables: Record<string, unknown> = {}) => {
    const r = (await (await fetch(`${o.baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) })).json()) as {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- GraphQL answers, read by field
      data: Record<string, any>;
      errors?: unknown;
    };
    if (r.errors) throw new Error(JSON.stringify(r.errors));
    return r.data;
  };

  let errors = 0;
  const error = (what: string) => {
    errors++;
    if (errors <= 5) console.error(`error: ${what}`);
  };

  // Screens: devices registered through REST (as claimDevice would create them).
  const keys: { id: string; key: string }[] = [];
  for (let i = 0; i < o.screens; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, o.screens - i) }, async (_, j) => {
        const r = (await (await fetch(`${o.baseUrl}/devices`, { method: 'POST', headers, body: JSON.stringify({ name: `Web screen ${i + j}` }) })).json()) as {
          id: string;
          registration_key: string;
        };
        return { id: r.id, key: r.registration_key };
      }),
    );
    keys.push(...batch);
  }
  const playlists: string[] = [];
  for (const name of ['A', 'B'])
    playlists.push((await gql(`mutation { createPlaylist(input: { name: "${name}" }) { playlist { id } } }`)).createPlaylist.playlist.id);
  const input = (playlistId: string) => ({ name: 'Fleet', type: 'PLAYLIST', playlistId, deviceIds: keys.map((k) => k.id) });
  const scheduleId = (await gql('mutation($i: ScheduleInput!) { createSchedule(input: $i) { schedule { id } } }', { i: input(playlists[0]!) })).createSchedule
    .schedule.id as string;

  /** Each screen's manifest version and when it last changed. */
  const held = new Map<string, { version: string; at: number }>();
  let stopping = false;
  const controllers = new Set<AbortController>();

  async function screen(s: { id: string; key: string }): Promise<void> {
    for (const path of ['/play/', '/play/assets/player.js']) {
      const r = await fetch(`${o.baseUrl}${path}`).catch(() => null);
      if (!r?.ok) error(`${path} ${r?.status}`);
      await r?.arrayBuffer();
    }
    let etag: string | null = null;
    const refetch = async () => {
      const r = await fetch(`${o.baseUrl}/player/${s.key}/manifest`, { headers: etag ? { 'if-none-match': etag } : {} }).catch(() => null);
      if (!r || (r.status !== 200 && r.status !== 304)) return error(`manifest ${r?.status}`);
      if (r.status === 200) {
        etag = r.headers.get('etag');
        const m = (await r.json()) as { version: string };
        held.set(s.id, { version: m.version, at: performance.now() });
      }
    };
    await refetch();
    let wait = 0;
    while (!stopping) {
      const ac = new AbortController();
      controllers.add(ac);
      try {
        const r = await fetch(`${o.baseUrl}/player/${s.key}/ping?wait=${wait}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          // As the web player: the manifest it holds (a change made between two pings is answered at once).
          body: JSON.stringify({ type: 'web', player_version: 'bench', meta: { playing: 'x', manifest_version: held.get(s.id)?.version ?? null } }),
          signal: ac.signal,
        });
        if (r.status !== 200) {
          error(`ping ${r.status}`);
          await new Promise((res) => setTimeout(res, 1000));
          continue;
        }
        const p = (await r.json()) as { manifest_version?: string };
        if (p.manifest_version && p.manifest_version !== held.get(s.id)?.version) await refetch();
      } catch (e) {
        if (!stopping) error(`ping ${(e as Error).message}`);
      } finally {
        controllers.delete(ac);
      }
      wait = 25;
    }
  }

  const t0 = performance.now();
  const running = keys.map((k) => screen(k));
  // All screens hold their first manifest.
  while (held.size < keys.length) await new Promise((r) => setTimeout(r, 50));
  const loadMs = Math.round(performance.now() - t0);
  console.log(`${o.screens} screens loaded /play and their manifests in ${loadMs} ms`);
  await new Promise((r) => setTimeout(r, 1500)); // every screen is long-polling now

  const fanout: { p50: number; p95: number; max: number }[] = [];
  for (let e = 0; e < o.edits; e++) {
    const before = new Set([...held.values()].map((h) => h.version));
    const started = performance.now();
    await gql('mutation($id: ID!, $i: ScheduleInput!) { updateSchedule(id: $id, input: $i) { success } }', {
      id: scheduleId,
      i: input(playlists[(e + 1) % 2]!),
    });
    const deadline = started + 30_000;
    while ([...held.values()].some((h) => before.has(h.version)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const lat = [...held.values()].map((h) => (before.has(h.version) ? Infinity : h.at - started)).sort((a, b) => a - b);
    const pct = (p: number) => Math.round(lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)]!);
    fanout.push({ p50: pct(50), p95: pct(95), max: pct(100) });
    if (lat.some((l) => l === Infinity)) error(`edit ${e}: ${lat.filter((l) => l === Infinity).length} screens did not get the new manifest within 30 s`);
    await new Promise((r) => setTimeout(r, 500));
  }
  stopping = true;
  o.releaseWaiters();
  for (const c of controllers) c.abort();
  await Promise.allSettled(running);
  const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const result = {
    loadMs,
    p50: med(fanout.map((f) => f.p50)),
    p95: med(fanout.map((f) => f.p95)),
    worst: Math.max(...fanout.map((f) => f.max)),
    errors,
  };
  console.log(
    `edit -> every screen's manifest, ${o.edits} edits x ${o.screens} screens: per-edit p50 (median over edits) ${med(fanout.map((f) => f.p50))} ms, ` +
      `p95 ${med(fanout.map((f) => f.p95))} ms, worst max ${Math.max(...fanout.map((f) => f.max))} ms; errors ${errors}`,
  );
  return result;
}
