/**
 * The browser docs in a real browser (headless Debian chromium driven by playwright-core): the
 * all-in-one runs as a process like `npm start`; /docs and /graphiql load with no console error,
 * list the operations, and a "try it" call with the key entered once returns the demo devices.
 * Screenshots of both pages go to .tmp/screenshots/; with UPDATE_SCREENSHOTS=true they replace the
 * committed ones in docs/screenshots/ (shown in the README), so a test run leaves the tree clean.
 * Without chromium the test fails in CI (CI=true, `.ci/run` installs it) and is skipped elsewhere.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { browserTest as chromiumTest, CHROMIUM, haveChromium, PAGE_ARGS, SHOTS } from './chromium.js';
import { startAllInOneProcess, type Processes } from './processes.js';

const KEY = 'docs-browser-key-0123456789';
const browserTest = chromiumTest('the browser docs test');

let dir: string;
let procs: Processes;
let baseUrl: string;
let context: BrowserContext;
let firstDevice: string;

beforeAll(async () => {
  if (!haveChromium) return;
  ({ dir, procs, baseUrl } = await startAllInOneProcess('docs-browser', KEY, { SIGNAGE_SIMULATOR: 'false' }, 75_000));
  const devices = (await (await fetch(`${baseUrl}/devices?take=100`, { headers: { 'x-service-apikey': KEY } })).json()) as { name: string }[];
  firstDevice = [...devices].map((d) => d.name).sort()[0]!;
  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', ...PAGE_ARGS],
    viewport: { width: 1280, height: 900 },
  });
  await mkdir(SHOTS, { recursive: true });
}, 150_000);

afterAll(async () => {
  await context?.close();
  await procs?.stopAll();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Opens a page that records every console error, uncaught exception and failed request. */
async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    // Each HTTP error also logs "Failed to load resource"; the response listener names its URL.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  await page.goto(`${baseUrl}${path}`, { waitUntil: 'load' });
  return { page, problems };
}

/** Runs `body` on a page opened at `path`; then the page must have recorded no problem. */
async function onPage(path: string, body: (page: Page) => Promise<unknown>): Promise<void> {
  const { page, problems } = await open(path);
  await body(page);
  expect(problems).toEqual([]);
  await page.close();
}

async function enterKey(page: Page): Promise<void> {
  await page.fill('#pylon-key input', KEY);
  await page.click('#pylon-key button');
  await page.waitForSelector('#pylon-key output:has-text("key set")');
}

browserTest('chromium is installed (CI installs it in .ci/run)', () => {
  expect(haveChromium).toBe(true);
});

browserTest(
  '/docs: Swagger UI lists the operations, and "try it" on GET /devices with the key returns devices',
  async () => {
    await onPage('/docs', async (page) => {
      // Tags come collapsed (docExpansion none): every tag of the document is listed, and each opens
      // with all of its operations.
      await page.waitForSelector('.opblock-tag', { timeout: 30_000 });
      const spec = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
      const tags = new Set(Object.values(spec.paths).flatMap((item) => Object.values(item).flatMap((o) => o.tags ?? [])));
      expect(await page.locator('.opblock-tag').count()).toBeGreaterThanOrEqual(tags.size);
      for (const tag of tags) {
        const header = page.locator(`.opblock-tag[data-tag="${tag}"]`);
        await header.click();
        const ops = Object.values(spec.paths).reduce((n, item) => n + Object.values(item).filter((o) => o.tags?.[0] === tag).length, 0);
        const shownOps = page.locator(`.opblock-tag-section:has(.opblock-tag[data-tag="${tag}"]) .opblock`);
        const until = Date.now() + 30_000;
        while ((await shownOps.count()) < ops && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
        expect([tag, await shownOps.count()]).toEqual([tag, ops]);
        if (tag !== 'Devices') await header.click();
      }
      await enterKey(page);
      // One place to enter the key (the bar): Swagger UI's Authorize button and locks are hidden.
      expect(await page.locator('.swagger-ui .auth-wrapper .authorize').isVisible()).toBe(false);
      expect(await page.locator('.swagger-ui .authorization__btn:visible').count()).toBe(0);

      const op = page.locator('#operations-Devices-listDevices');
      await op.locator('.opblock-summary').first().click();
      // The reference's PascalCase aliases (x-pylon-alias) are left out of the docs view only.
      await op.locator('tr[data-param-name="take"]').waitFor({ timeout: 30_000 });
      const shown = await op.locator('tr[data-param-name]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-param-name')));
      expect(shown).toEqual(expect.arrayContaining(['id', 'take', 'page', 'group_id', 'is_online']));
      for (const alias of ['Id', 'Take', 'Page', 'DeviceTypeId', 'GroupId', 'GroupName', 'IncludeSnap', 'OrgId', 'IsOnline'])
        expect(shown).not.toContain(alias);
      const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, { get: { parameters: { name?: string }[] } }> };
      expect(document.paths['/devices']!.get.parameters.map((p) => p.name)).toContain('Take');
      const aliased = await fetch(`${baseUrl}/devices?Take=1`, { headers: { 'x-service-apikey': KEY } });
      expect(aliased.status).toBe(200);
      expect(await aliased.json()).toHaveLength(1);
      await op.locator('.try-out__btn').click();
      await op.locator('button.execute').click();
      const response = op.locator('.live-responses-table .response');
      await response.waitFor({ timeout: 30_000 });
      expect((await response.locator('.response-col_status').first().innerText()).trim()).toBe('200');
      expect(await response.locator('.response-col_description').first().innerText()).toContain(firstDevice);

      await response.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'rest-docs.png') });
    });
  },
  90_000,
);

browserTest(
  '/graphiql: the explorer lists the root fields, and { device { id name } } with the key returns devices',
  async () => {
    await onPage('/graphiql', async (page) => {
      // The first request builds the GraphiQL bundle with esbuild (cached afterwards).
      await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 60_000 });
      await enterKey(page);

      // The query editor is CodeMirror 5: its instance hangs off its element. (Page code is written as
      // strings: this project's TypeScript has no DOM types.)
      await page.evaluate(`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue('{ device { id name } }')`);
      await page.click('.graphiql-execute-button');
      const result = page.locator('.graphiql-response .CodeMirror');
      // A locator wait, not waitForFunction: a string predicate is evaluated in the page, which the CSP (no unsafe-eval) refuses.
      await page.locator('.graphiql-response .CodeMirror').filter({ hasText: firstDevice }).waitFor({ timeout: 30_000 });
      expect(await result.innerText()).toContain('"device"');

      await page.click('[aria-label="Show Documentation Explorer"]');
      const explorer = page.locator('.graphiql-doc-explorer');
      await explorer.getByText('Query', { exact: true }).first().click();
      await explorer.getByText('device', { exact: true }).first().waitFor();
      expect(await explorer.innerText()).toMatch(/deviceGroups/);

      await page.screenshot({ path: join(SHOTS, 'graphiql.png') });
    });
  },
  120_000,
);

browserTest(
  'a browser asking /graphql for HTML gets GraphiQL; API clients still get the JSON API',
  async () => {
    await onPage('/graphql', (page) => page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: 60_000 }));
    const api = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-apikey': KEY },
      body: JSON.stringify({ query: '{ device { id } }' }),
    });
    expect(api.status).toBe(200);
  },
  90_000,
);
