/**
 * Emergency override (issue 37, item 1): N real web-player screens (/play in headless Chromium, one
 * browser, a context per screen) playing a schedule; an override is started on all of them, then
 * cancelled. For each screen, the time from sending the mutation until the server recorded its
 * acknowledgement (SHOWING, then ENDED after the cancel), as the page noted it when the server's
 * answer came: p50/p95/max over screens. The bar: p95 within 2 s for 50 screens.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export interface OverrideFleetOptions {
  baseUrl: string;
  key: string;
  screens: number;
  /** Chromium's executable (CHROMIUM_PATH, default /usr/bin/chromium). */
  chromiumPath?: string;
}

export interface OverrideFleetResult {
  screens: number;
  shown: { p50: number; p95: number; max: number };
  cleared: { p50: number; p95: number; max: number };
  errors: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: quantile(s, 0.5), p95: quantile(s, 0.95), max: s.at(-1) ?? 0 };
};

export async function overrideFleet(o: OverrideFleetOptions): Promise<OverrideFleetResult | null> {
  const chromiumPath = o.chromiumPath ?? '/usr/bin/chromium';
  if (!existsSync(chromiumPath)) {
    console.log(`emergency override: skipped (no chromium at ${chromiumPath}; CHROMIUM_PATH names another)`);
    return null;
  }
  const headers = { 'x-service-apikey': o.key, 'content-type': 'application/json' };
  /** One GraphQL call as the bench key; a GraphQL error fails the scenario. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers read by field
  async function gql(query: string, variables: Record<string, unknown> = {}): Promise<any> {
    const res = await fetch(`${o.baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    const { data, errors: failed } = (await res.json()) as { data?: unknown; errors?: unknown };
    if (failed || !data) throw new Error(`GraphQL answered ${res.status}: ${JSON.stringify(failed)}`);
    return data;
  }
  let errors = 0;
  const tag = `bench-override-${Date.now()}`;
  const screens: { id: string; key: string }[] = [];
  for (let i = 0; i < o.screens; i++) {
    const r = await fetch(`${o.baseUrl}/devices`, { method: 'POST', headers, body: JSON.stringify({ name: `Override screen ${i}`, tags: [tag] }) });
    const body = (await r.json()) as { id: string; registration_key: string };
    screens.push({ id: body.id, key: body.registration_key });
  }
  const browser: Browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    // The screens open a few at a time (each boots a page, a Service Worker and a first manifest).
    const pages: Page[] = [];
    for (let i = 0; i < screens.length; i += 10) {
      await Promise.all(
        screens.slice(i, i + 10).map(async (s) => {
          const page = await (await browser.newContext({ viewport: { width: 320, height: 180 } })).newPage();
          await page.goto(`${o.baseUrl}/play?key=${encodeURIComponent(s.key)}`);
          // A selector, not a script: the page's CSP refuses string evaluation (production mode).
          await page.locator('body[data-manifest-version]').waitFor({ state: 'attached', timeout: 120_000 });
          pages.push(page);
        }),
      );
    }
    /**
     * Per screen, ms from `since` until the screen's acknowledgement in `state` was recorded, by the
     * page's own note of it (`data-override-acked-at`, this machine's clock): read once every screen
     * reads `state` in the operator's view (GraphQL, polled every 250 ms), so the measurement asks
     * nothing of the pages meanwhile.
     */
    const recorded = async (id: string, state: string, since: number): Promise<number[]> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const r = await gql('query($id: ID!) { override(id: $id) { screens { state } } }', { id });
        if ((r.override.screens as { state: string }[]).every((s) => s.state === state) || Date.now() > deadline) break;
        await new Promise((res) => setTimeout(res, 250));
      }
      const at = await Promise.all(
        pages.map(async (p) => {
          // The page notes it when the server's answer arrives, a moment after the server recorded it.
          const body = p.locator(`body[data-override-acked="${id}:${state}"]`);
          const noted = await body.waitFor({ state: 'attached', timeout: 30_000 }).then(
            () => true,
            () => false,
          );
          return noted ? Number(await body.getAttribute('data-override-acked-at')) - since : null;
        }),
      );
      const seen = at.filter((x): x is number => x !== null);
      errors += pages.length - seen.length;
      return seen;
    };
    const started = Date.now();
    const r = await gql('mutation($i: OverrideInput!) { startOverride(input: $i) { success error override { id } } }', {
      i: { name: 'Bench', content: { type: 'MESSAGE', text: 'Bench override' }, target: { tags: [tag] } },
    });
    if (!r.startOverride.success) throw new Error(r.startOverride.error);
    const id = r.startOverride.override.id as string;
    const shown = await recorded(id, 'SHOWING', started);
    const cancelled = Date.now();
    await gql('mutation($id: ID!) { cancelOverride(id: $id) { success } }', { id });
    const cleared = await recorded(id, 'ENDED', cancelled);
    const result = { screens: screens.length, shown: summary(shown), cleared: summary(cleared), errors };
    console.log(
      `emergency override on ${result.screens} web-player screens (headless Chromium): acknowledged showing p50 ${result.shown.p50} ms, p95 ${result.shown.p95} ms, max ${result.shown.max} ms; ` +
        `cancel acknowledged p50 ${result.cleared.p50} ms, p95 ${result.cleared.p95} ms, max ${result.cleared.max} ms; ${errors} screens missing`,
    );
    return result;
  } finally {
    await browser.close();
  }
}
