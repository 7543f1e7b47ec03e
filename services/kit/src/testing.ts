/**
 * Test support for subgraph-tier tests (imported as `@pylon/kit/testing`, never by product code):
 * a principal builder, a runner that executes operations through a subgraph's public entry with a
 * context built from a signed internal token exactly as the gateway does, polling, a handler served
 * on a free port, an event stream opened and read in the background, a CLI run to its end, and how
 * to start an entry point (compiled when the build is current, else through tsx).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { POLICIES, type Policy } from './auth/policies.js';
import { InternalTokens, type Principal } from './auth/principal.js';
import type { Subgraph } from './graphql/context.js';

export const testTokens = new InternalTokens('test-internal-secret-'.padEnd(32, 'x'));

/** An owner with the API role in `accountId`, holding `policies` (default: all of them). */
export const testPrincipal = (accountId: string, policies: readonly Policy[] = POLICIES, userId = 'u1'): Principal => ({
  accountId,
  userId,
  userName: 'user',
  roles: ['Owner', 'API'],
  policies: [...policies],
  isOwner: true,
  via: 'api-key',
});

/** `run(query, variables, who)` against `subgraph()` (a getter, so suites may build it in beforeAll). */
export function subgraphRunner(subgraph: () => Subgraph, defaultWho: Principal, tokens: InternalTokens = testTokens) {
  return async (query: string, variables: Record<string, unknown> = {}, who: Principal = defaultWho) => {
    const sg = subgraph();
    return sg.execute({ query, variables }, await sg.createContext(await tokens.sign(who)));
  };
}

/**
 * `list(field, query, variables, who)`: the named root field (a list) of an answer that must have
 * succeeded; an answer with errors fails the test, naming them.
 */
export function subgraphLister(run: ReturnType<typeof subgraphRunner>, defaultWho: Principal) {
  return async <T = Record<string, unknown>>(
    field: string,
    query: string,
    variables: Record<string, unknown> = {},
    who: Principal = defaultWho,
  ): Promise<T[]> => {
    const r = await run(query, variables, who);
    if (r.errors !== undefined) throw new Error(`${field}: expected no errors, got ${JSON.stringify(r.errors)}`);
    return (r.data as Record<string, T[]>)[field]!;
  };
}

/**
 * How `run` answers each of `queries` (with `variables`) to a caller of account acc-a: `without`,
 * the error code when it holds every policy but `policy` (FORBIDDEN where the policy is required);
 * `alone`, whether it answers without errors when it holds `policy` alone.
 */
export async function policyAnswers(
  run: ReturnType<typeof subgraphRunner>,
  policy: Policy,
  queries: readonly string[],
  variables: Record<string, unknown> = {},
): Promise<{ without: unknown[]; alone: boolean[] }> {
  const without = testPrincipal(
    'acc-a',
    POLICIES.filter((p) => p !== policy),
  );
  const alone = testPrincipal('acc-a', [policy]);
  const answers = { without: [] as unknown[], alone: [] as boolean[] };
  for (const query of queries) {
    answers.without.push((await run(query, variables, without)).errors?.[0]?.extensions?.code);
    answers.alone.push((await run(query, variables, alone)).errors === undefined);
  }
  return answers;
}

/** The first error of a GraphQL answer that must have failed: its message and its extensions (code, field, ...). */
export function firstError(r: { errors?: readonly { message: string; extensions?: unknown }[] | undefined }): { message: string } & Record<string, unknown> {
  const e = r.errors?.[0];
  if (!e) throw new Error('the request was expected to fail, and it succeeded');
  return { message: e.message, ...(e.extensions as Record<string, unknown> | undefined) };
}

/**
 * Polls `f` (sync or async) every `every` ms until it gives something truthy, which it returns;
 * fails naming `what` after `ms` (default 60 s: enough on a busy machine).
 */
export async function until<T>(what: string, f: () => T | undefined | false | Promise<T | undefined | false>, ms = 60_000, every = 25): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/** The repository's root (this file is services/kit/src/testing.ts, or dist/testing.js when built). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * tsx's loader, for `node --import <it> entry.ts`: one process, so a signal reaches the entry
 * itself. (The `tsx` command is a parent that relays signals and, when its child does not confirm
 * one within 30 ms, as on a busy machine, SIGKILLs it and exits 143.)
 */
export const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const dist = createRequire(import.meta.url)(join(ROOT, 'scripts/dist.cjs')) as { isCurrent(): boolean; CONDITION: string };

/**
 * How to start an entry (`services/x/src/y.ts`, from the repository's root): compiled (plain node,
 * what the image runs; a fraction of tsx's start time on a busy machine) when `npm run build`
 * output is current, through tsx otherwise.
 */
export function entryCommand(entry: string): [string, string[]] {
  if (dist.isCurrent()) return [process.execPath, [`--conditions=${dist.CONDITION}`, join(ROOT, entry.replace('/src/', '/dist/').replace(/\.ts$/, '.js'))]];
  return [process.execPath, ['--import', TSX_LOADER, join(ROOT, entry)]];
}

/** What a finished child process printed, and its exit code (1 when killed by a signal). */
export interface ProcessOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end (a CLI under test), collecting its output. */
export function runToEnd(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, ...(cwd ? { cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** A request handler (an express app or router) served on a free loopback port until `close()`. */
export async function serveOnFreePort(handler: RequestListener): Promise<{ base: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/** An open Server-Sent Events response: what it sent so far, whether the server ended it, and a way to close it. */
export interface OpenEventStream {
  status: number;
  headers: Headers;
  text(): string;
  ended(): boolean;
  close(): void;
}

/** GETs `url` as an event stream; a 200's body is read in the background (`text()` grows), any other answer's at once. */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<OpenEventStream> {
  const ac = new AbortController();
  const res = await fetch(url, { headers, signal: ac.signal });
  let text = res.status === 200 ? '' : await res.text();
  let ended = res.status !== 200;
  if (!ended)
    void (async () => {
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
      } catch {
        /* aborted */
      }
      ended = true;
    })();
  return { status: res.status, headers: res.headers, text: () => text, ended: () => ended, close: () => ac.abort() };
}

/**
 * A user's shell, for starting `npm start` (or another command) as a person types it: `extra` over
 * `base` (the caller's process.env) without Pylon's settings, NODE_ENV, LOG_* and the npm_* / pnpm_*
 * variables a package manager exports to the scripts it runs (npm warns about pnpm's, "Unknown env
 * config", on every npm command; a user's shell has none).
 */
export function userShellEnv(base: NodeJS.ProcessEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...base };
  for (const k of Object.keys(env))
    if (/^(SIGNAGE_|PORT$|LEGACY_PORT$|NODE_ENV$|LOG_LEVEL$|LOG_FILE$|JEST_|REST_CONFORMANCE)/.test(k) || /^p?npm_/i.test(k)) delete env[k];
  return { ...env, ...extra };
}
