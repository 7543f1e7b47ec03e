/** A screen's ping that long-polls for a manifest change, as the player sends it. */

/**
 * Pings as the screen `key` with `?wait=20`, runs `change` 300 ms later (the ping is waiting by
 * then), and answers the ping's answer and how long it took from the ping's start.
 */
export async function pingThroughChange(base: string, key: string, change: () => Promise<unknown>): Promise<{ answer: Record<string, any>; ms: number }> {
  const started = Date.now();
  const waiting = fetch(`${base}/player/${key}/ping?wait=20`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  }).then(async (r) => (await r.json()) as Record<string, any>);
  await new Promise((r) => setTimeout(r, 300));
  await change();
  const answer = await waiting;
  return { answer, ms: Date.now() - started };
}
