/**
 * Pylon's MCP server driven by the SDK's own client over both transports, against one started
 * all-in-one server for the file. Stdio: `npm run --silent mcp` as a desktop client starts it, with
 * the key in PYLON_API_KEY (ready within 60 s). Streamable HTTP at /mcp: OAuth discovery as the MCP authorization spec has it
 * (401 -> protected-resource metadata -> the issuer -> PKCE with the public client), the tools and
 * their schemas, explain_screen agreeing with nowPlaying, an image scheduled through the tool in
 * the screen's manifest, a viewer refused a write, another account's screen ids refused, and every
 * call in the audit trail under the tool's name. Readiness: the server and two sign-ins within 180 s (a
 * loaded 2-core machine measured 35-47 s for the server and 16 s for the sign-ins, password hashing).
 */
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createAccount, createApiKey, createUser, type IdentityService } from '@pylon/identity';
import { startHarness, type Harness } from '../../gateway/test/harness.js';
import { accessTokenFor } from '../../gateway/test/oauth.helpers.js';
import { ROOT } from '../../gateway/test/processes.js';
import { parseStdioEnv } from '../src/config.js';

const OWNER = { username: 'owner@demo.example', password: 'demo-owner-password-1' };
const VIEWER = { username: 'viewer-mcp@demo.example', password: 'viewer-password-1' };
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let h: Harness;
let ownerToken: string;
let viewerToken: string;
let keyB: string;
const opened: Client[] = [];

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'pylon-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', h.baseUrl), { requestInit: { headers } }));
  opened.push(client);
  return client;
}

const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

beforeAll(async () => {
  h = await startHarness({ SIGNAGE_DEMO_PASSWORD: OWNER.password, AUTH_FAILURE_POINTS: '1000' });
  const identity = h.subgraphs.identity as unknown as IdentityService;
  await createUser(identity.repo, { accountId: 'demo-account', username: VIEWER.username, roles: ['Viewer'], password: VIEWER.password });
  // Another account, with a key of its own.
  const other = { accountId: 'tenant-b' };
  await createAccount(identity.repo, { id: other.accountId, name: 'Tenant B', timezone: 'Asia/Tokyo' });
  const { id: userId } = await createUser(identity.repo, { ...other, username: 'owner@tenant-b.example', roles: ['Owner', 'API'] });
  keyB = (await createApiKey(identity.repo, { ...other, userId, name: 'mcp-b' })).value;
  [ownerToken, viewerToken] = await Promise.all([accessTokenFor(h.oauthIssuer, OWNER), accessTokenFor(h.oauthIssuer, VIEWER)]);
}, 180_000);

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await h?.stop();
});

test('discovery: 401 names the protected-resource metadata, which names Pylon as issuer with PKCE S256', async () => {
  const res = await fetch(`${h.baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(res.status).toBe(401);
  const challenge = res.headers.get('www-authenticate')!;
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
  expect(metadataUrl).toBe(`${h.baseUrl}/.well-known/oauth-protected-resource/mcp`);
  const prm = (await (await fetch(metadataUrl)).json()) as { resource: string; authorization_servers: string[] };
  expect(prm).toMatchObject({ resource: h.oauthIssuer, authorization_servers: [h.oauthIssuer], scopes_supported: ['webapi'] });
  const as = (await (await fetch(`${prm.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>;
  expect(as.code_challenge_methods_supported).toContain('S256');
  // A token that is not Pylon's: 401 with error="invalid_token", the metadata named again.
  const bad = await fetch(`${h.baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' },
    body: '{}',
  });
  expect(bad.status).toBe(401);
  const rebound = await fetch(`${h.baseUrl}/mcp`, {
    method: 'POST',
    headers: { origin: 'http://evil.example', authorization: `Bearer ${ownerToken}` },
    body: '{}',
  });
  expect(rebound.status).toBe(403);
  expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+", scope="webapi", error="invalid_token"$/);
});

test('tools: every one with a description, valid input and output JSON schemas, destructive ones taking confirm', async () => {
  const c = await connect({ authorization: `Bearer ${ownerToken}` });
  const { tools } = await c.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(
    [
      'delete_table_row',
      'edit_table_row',
      'explain_screen',
      'export_proof_of_play',
      'find_screens',
      'play_stats',
      'read_table_rows',
      'schedule_content',
      'screen_timeline',
      'send_command',
      'uptime',
    ].sort(),
  );
  const ajv = new Ajv({ strict: false });
  // ajv-formats is CommonJS with `exports.default` (see gateway/test/support/reference-conformance.ts).
  (((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (a: Ajv) => Ajv)(ajv);
  for (const t of tools) {
    expect(t.description!.length).toBeGreaterThan(80);
    expect(() => ajv.compile(t.inputSchema)).not.toThrow();
    expect(() => ajv.compile(t.outputSchema!)).not.toThrow();
    if (t.annotations?.destructiveHint) expect(Object.keys(t.inputSchema.properties ?? {})).toContain('confirm');
  }
  const { resources } = await c.listResources();
  expect(resources.map((r) => r.uri)).toEqual(
    expect.arrayContaining(['pylon://schema/graphql', 'pylon://schema/openapi', 'pylon://docs/agents.md', 'pylon://docs/content.md']),
  );
  const sdl = await c.readResource({ uri: 'pylon://schema/graphql' });
  expect((sdl.contents[0] as { text: string }).text).toMatch(/nowPlaying/);
});

test('find_screens pages and caps; explain_screen gives the verdicts nowPlaying gives; an image scheduled by the tool is in the manifest', async () => {
  const c = await connect({ authorization: `Bearer ${ownerToken}` });
  const page = await call(c, 'find_screens', { pageSize: 2 });
  expect(page.isError).toBeFalsy();
  const found = page.structuredContent as { screens: { id: string }[]; total: number; nextCursor: string | null };
  expect(found.screens).toHaveLength(2);
  expect(found.total).toBeGreaterThan(2);
  expect(found.nextCursor).toBe('2');
  expect((await call(c, 'find_screens', { pageSize: 500 })).isError).toBe(true);

  const dev = await h.gql('mutation { createDevice(input: { name: "MCP lobby", timezone: "Europe/Amsterdam" }) { device { id registrationKey } } }');
  const { id: screenId, registrationKey } = dev.body.data!.createDevice.device;
  const form = new FormData();
  form.set('file', new Blob([PNG], { type: 'image/png' }), 'menu.png');
  form.set('name', 'Menu');
  const media = (await (await fetch(`${h.baseUrl}/media`, { method: 'POST', headers: { 'x-service-apikey': h.key }, body: form })).json()) as { id: string };

  const scheduled = await call(c, 'schedule_content', { screenIds: [screenId], mediaId: media.id, name: 'Menu all day', priority: 'HIGH' });
  expect(scheduled.isError).toBeFalsy();
  const created = scheduled.structuredContent as { created: { schedule: { id: string; name: string }; playlist: { id: string } } };
  expect(created.created.schedule.name).toBe('Menu all day');

  const manifest = (await (await fetch(`${h.baseUrl}/player/${registrationKey}/manifest`)).json()) as Record<string, unknown>;
  expect(JSON.stringify(manifest)).toContain(media.id);

  const explained = await call(c, 'explain_screen', { screenId });
  const direct = await h.gql(`{ nowPlaying(deviceId: "${screenId}") { schedule { id } considered { schedule { id } verdict reason } } }`);
  const mine = explained.structuredContent as { schedule: { id: string }; considered: { schedule: { id: string }; verdict: string; reason: string }[] };
  expect(mine.schedule.id).toBe(created.created.schedule.id);
  expect(mine.considered.map((x) => [x.schedule.id, x.verdict, x.reason])).toEqual(
    direct.body.data!.nowPlaying.considered.map((x: { schedule: { id: string }; verdict: string; reason: string }) => [x.schedule.id, x.verdict, x.reason]),
  );
  expect(mine.considered.find((x) => x.schedule.id === created.created.schedule.id)?.verdict).toBe('PLAYING');

  const timeline = await call(c, 'screen_timeline', { screenId });
  expect((timeline.structuredContent as { segments: { schedule: { id: string } | null }[] }).segments[0]!.schedule?.id).toBe(created.created.schedule.id);

  // Destructive: without confirm nothing is sent, and the answer says to which screens it would go.
  const unconfirmed = await call(c, 'send_command', { screenIds: [screenId], command: 'reboot' });
  expect(unconfirmed.isError).toBe(true);
  expect(text(unconfirmed)).toMatch(/CONFIRMATION_REQUIRED: This would send "reboot" to 1 screen\(s\): MCP lobby/);
  const sent = await call(c, 'send_command', { screenIds: [screenId], command: 'reboot', confirm: true });
  expect(sent.isError).toBeFalsy();
  expect((sent.structuredContent as { queued: { commands: { status: string }[] }[] }).queued[0]!.commands[0]!.status).toBe('QUEUED');
});

test("a viewer token reads but cannot call a write tool; another account's screen ids are refused", async () => {
  const viewer = await connect({ authorization: `Bearer ${viewerToken}` });
  const screens = (await call(viewer, 'find_screens', { pageSize: 1 })).structuredContent as { screens: { id: string }[] };
  const write = await call(viewer, 'schedule_content', { screenIds: [screens.screens[0]!.id], playlistId: 'any', name: 'Not allowed' });
  expect(write.isError).toBe(true);
  expect(text(write)).toMatch(/^FORBIDDEN/);
  const cmd = await call(viewer, 'send_command', { screenIds: [screens.screens[0]!.id], command: 'reboot', confirm: true });
  expect(text(cmd)).toMatch(/^FORBIDDEN/);

  const b = await fetch(`${h.baseUrl}/devices`, {
    method: 'POST',
    headers: { 'x-service-apikey': keyB, 'content-type': 'application/json' },
    body: '{"name":"B screen"}',
  });
  const foreign = ((await b.json()) as { id: string }).id;
  const owner = await connect({ authorization: `Bearer ${ownerToken}` });
  for (const [tool, args] of [
    ['explain_screen', { screenId: foreign }],
    ['screen_timeline', { screenId: foreign }],
    ['send_command', { screenIds: [foreign], command: 'reboot', confirm: true }],
    ['schedule_content', { screenIds: [foreign], playlistId: 'x', name: 'Steal' }],
  ] as const) {
    const r = await call(owner, tool, args);
    expect({ tool, isError: r.isError, text: text(r) }).toMatchObject({ tool, isError: true, text: expect.stringMatching(/^NOT_FOUND/) });
  }
  // And account B's own key over /mcp sees only B's screen.
  const asB = await connect({ 'x-service-apikey': keyB });
  expect((await call(asB, 'find_screens', {})).structuredContent).toMatchObject({ total: 1, screens: [{ id: foreign }] });
});

test('every tool call is in the audit trail, under the caller and the tool name', async () => {
  const want = ['find_screens', 'explain_screen', 'schedule_content', 'screen_timeline', 'send_command'];
  const deadline = Date.now() + 30_000;
  let actions: { actionName: string; userName: string }[] = [];
  for (;;) {
    const r = await h.gql('{ auditEvent(limit: 1000, where: { actionName: { startsWith: "mcp:" } }) { actionName userName } }');
    actions = r.body.data?.auditEvent ?? [];
    if (want.every((t) => actions.some((a) => a.actionName.startsWith(`mcp:${t} `)))) break;
    if (Date.now() > deadline) throw new Error(`audit events: ${JSON.stringify(actions).slice(0, 800)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(actions.find((a) => a.actionName === 'mcp:explain_screen ExplainScreen')?.userName).toBe(OWNER.username);
  expect(actions.some((a) => a.actionName === 'mcp:schedule_content ScheduleContent')).toBe(true);
}, 45_000);

describe('stdio (npm run mcp)', () => {
  const STDIO_READY_MS = 60_000;
  let stdio: Client;
  let stderr = '';

  beforeAll(async () => {
    const transport = new StdioClientTransport({
      command: 'npm',
      args: ['run', '--silent', 'mcp'],
      cwd: ROOT,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', PYLON_URL: h.baseUrl, PYLON_API_KEY: h.key },
      stderr: 'pipe',
    });
    transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    stdio = new Client({ name: 'pylon-stdio-test', version: '1.0.0' });
    await stdio.connect(transport, { timeout: STDIO_READY_MS });
    opened.push(stdio);
  }, STDIO_READY_MS + 10_000);

  test('the same tools; calls act with the key (audited as find_screens); the key is never written', async () => {
    const { tools } = await stdio.listTools();
    expect(tools).toHaveLength(11);
    const r = await call(stdio, 'find_screens', { online: false, pageSize: 1 });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { screens: unknown[] }).screens.length).toBeLessThanOrEqual(1);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const a = await h.gql('{ auditEvent(limit: 50, where: { actionName: { eq: "mcp:find_screens FindScreens" } }) { userName } }');
      if ((a.body.data?.auditEvent ?? []).length) break;
      if (Date.now() > deadline) throw new Error('no audit event for the stdio call');
      await new Promise((res) => setTimeout(res, 200));
    }
    expect(stderr).toMatch(/serving .* over stdio/);
    expect(stderr).not.toContain(h.key);
  }, 45_000);

  test('settings: a missing key is named, a bad one never echoed', () => {
    const missing = parseStdioEnv({});
    expect(missing).toMatchObject({ ok: false, message: expect.stringContaining('PYLON_API_KEY') });
    const short = parseStdioEnv({ PYLON_API_KEY: 'pyl_secret' });
    expect(short.ok).toBe(false);
    expect(JSON.stringify(short)).not.toContain('pyl_secret');
  });
});
