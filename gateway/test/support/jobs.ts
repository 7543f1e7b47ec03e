/** Test support for jobs (imports, exports) behind the gateway. */

type Json = Record<string, any>;

/** Reads GET /jobs/{id} through `get` every 100 ms until the job is finished; fails after `ms` with its state. */
export async function jobFinished(get: (path: string) => Promise<{ body: Json }>, id: string, ms = 120_000): Promise<Json> {
  for (const deadline = Date.now() + ms; ;) {
    const r = await get(`/jobs/${id}`);
    if (['succeeded', 'failed', 'cancelled'].includes(r.body.state)) return r.body;
    if (Date.now() > deadline) throw new Error(`job still ${r.body.state}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
