/** Starts the all-in-one server exactly as `npm start` does, on a temp data dir and free ports. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentRepository } from '@pylon/content';
import { loadConfig } from '@pylon/kit';
import { startAllInOne, type AllInOne } from '../../launcher/src/all-in-one.js';
import { allInOneEnv } from '../../launcher/src/all-in-one.config.js';
import { registerRestOrigin } from './support/reference-conformance.js';

export const TEST_KEY = 'test-bootstrap-key-0123456789';

export interface Harness extends AllInOne {
  dataDir: string;
  key: string;
  stop(): Promise<void>;
  gql(
    query: string,
    opts?: { variables?: Record<string, unknown>; headers?: Record<string, string>; key?: string | null },
  ): Promise<{ status: number; body: { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] } }>;
}

/**
 * The harness of the tests of this file, or of the describe block it is called in: started before
 * them, stopped after. It stands for the started harness, so read it only inside tests and hooks.
 */
export function harnessForTests(env: Record<string, string> = {}, timeout = 60_000): Harness {
  let started: Harness | undefined;
  beforeAll(async () => {
    started = await startHarness(env);
  }, timeout);
  afterAll(() => started?.stop());
  const current = (): Harness => {
    if (!started) throw new Error('the harness is read before it started (outside a test or hook)');
    return started;
  };
  return new Proxy({} as Harness, {
    get: (_, key) => Reflect.get(current(), key),
    has: (_, key) => Reflect.has(current(), key),
  });
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pylon-e2e-'));
  const config = loadConfig(allInOneEnv, {
    SIGNAGE_DATA_DIR: dataDir,
    PORT: '0',
    LEGACY_PORT: '0',
    LOG_LEVEL: 'silent',
    SIGNAGE_BOOTSTRAP_API_KEY: TEST_KEY,
    SIGNAGE_SIMULATOR: 'false',
    ...env,
  });
  const app = await startAllInOne(config);
  registerRestOrigin(app.baseUrl);
  return Object.assign(app, {
    dataDir,
    key: TEST_KEY,
    async stop() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
    async gql(query: string, opts: { variables?: Record<string, unknown>; headers?: Record<string, string>; key?: string | null } = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
      const key = opts.key === undefined ? TEST_KEY : opts.key;
      if (key) headers['x-service-apikey'] = key;
      const res = await fetch(`${app.baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables: opts.variables }) });
      return { status: res.status, body: (await res.json()) as never };
    },
  });
}

/**
 * A media record written straight to the content store (no upload, no file): tests that need a
 * media id to play, report or probe. Ungrouped, untagged, 1x1 and 10 bytes unless `fields` says otherwise.
 */
export async function insertMedia(
  h: AllInOne,
  accountId: string,
  fields: { name: string; fileName: string; mimeType: string; groupId?: string | null; groupName?: string | null; tags?: string[] },
): Promise<string> {
  const content = (h.subgraphs.content as unknown as { repo: ContentRepository }).repo;
  const media = await content.media.items.insert(accountId, {
    groupId: null,
    groupName: null,
    tags: [],
    ...fields,
    fileSize: 10,
    fileUrl: null,
    thumbnailUrl: null,
    width: 1,
    height: 1,
    orgId: null,
  });
  return media.id;
}

/**
 * Calls to the legacy API of the harness `h()` answers, the key as the `api_key` parameter (the
 * reference's way; the harness's key unless `opts.key`), `opts.query` as more parameters and
 * `opts.body` sent as `opts.type` (JSON by default). Answers the status, content type and body text.
 */
export function legacyCaller(h: () => Harness) {
  return async (method: string, path: string, opts: { body?: string; type?: string; key?: string; query?: Record<string, string> } = {}) => {
    const url = new URL(path, h().legacyUrl);
    url.searchParams.set('api_key', opts.key ?? h().key);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const res = await fetch(url, {
      method,
      ...(opts.body !== undefined ? { body: opts.body, headers: { 'content-type': opts.type ?? 'application/json' } } : {}),
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };
}
