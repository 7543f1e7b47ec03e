/**
 * The repository checks `npm test` runs (scripts/test-all.cjs) fail on what they are meant to catch:
 * each case runs the real tool with the repository's own configuration over a small fixture.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { layoutProblems, readmeProblems, SKELETON, SUBGRAPHS } from '../check-layout.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pylon-tooling-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path → text) under the fixture directory. */
function fixture(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

function run(cmd: string, args: string[]) {
  // Plain output whatever the terminal: the assertions read the tools' messages.
  const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const TSCONFIG = JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } });
interface LayeringCase {
  /** The fixture's files besides tsconfig.json. */
  files: Record<string, string>;
  /** The folders dependency-cruiser reads. */
  dirs?: string[];
  /** Lines it must print, and files it must not report. */
  reports: RegExp[];
  spares?: RegExp;
  /** Whether the check passes (only warnings). */
  passes?: boolean;
}

const LAYERING: Record<string, LayeringCase> = {
  'an import cycle fails': {
    files: {
      'services/devices/src/a.ts': "import { b } from './b.js';\nexport const a = () => b();\n",
      'services/devices/src/b.ts': "import { a } from './a.js';\nexport const b = (): unknown => a;\n",
    },
    reports: [/error no-circular: services\/devices\/src\/a\.ts/],
  },
  'a cycle held only by `import type` is reported without failing': {
    files: {
      'services/devices/src/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
      'services/devices/src/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
    },
    reports: [/warn no-circular-types/],
    passes: true,
  },
  'domain code importing an adapter fails; a composition root may': {
    files: {
      'services/adapters/src/memory/store.memory.ts': 'export const store = new Map<string, string>();\n',
      'services/devices/src/domain/device.ts': "import { store } from '../../../adapters/src/memory/store.memory.js';\nexport const size = () => store.size;\n",
      'services/devices/src/main.ts': "import { store } from '../../adapters/src/memory/store.memory.js';\nexport const main = () => store.clear();\n",
    },
    reports: [
      /error domain-is-pure: services\/devices\/src\/domain\/device\.ts/,
      /error adapters-from-composition-roots: services\/devices\/src\/domain\/device\.ts/,
    ],
    spares: /main\.ts/,
  },
  'the kit importing an adapter fails, its tests included': {
    files: {
      'services/adapters/src/memory/store.memory.ts': 'export const store = new Map<string, string>();\n',
      'services/kit/src/jobs.ts': "import { store } from '../../adapters/src/memory/store.memory.js';\nexport const size = () => store.size;\n",
      'services/kit/test/jobs.test.ts': "import { store } from '../../adapters/src/memory/store.memory.js';\nexport const clear = () => store.clear();\n",
    },
    reports: [/error kit-sees-no-adapter: services\/kit\/src\/jobs\.ts/, /error kit-sees-no-adapter: services\/kit\/test\/jobs\.test\.ts/],
  },
  'a facade importing a service fails': {
    files: {
      'services/devices/src/app.ts': 'export const app = 1;\n',
      'rest-facade/src/routes.ts': "import { app } from '../../services/devices/src/app.js';\nexport const routes = app;\n",
    },
    dirs: ['services', 'rest-facade'],
    reports: [/error facades-never-import-services: rest-facade\/src\/routes\.ts/],
  },
  "the gateway may use a subgraph's public entry only; nothing imports the launcher; express only in a subgraph's http/ and main": {
    files: {
      'node_modules/express/package.json': JSON.stringify({ name: 'express', main: 'index.js' }),
      'node_modules/express/index.js': 'module.exports = () => undefined;\n',
      'services/devices/src/index.ts': "export { repo } from './repositories/device.repository.js';\n",
      'services/devices/src/repositories/device.repository.ts': 'export const repo = 1;\n',
      'services/devices/src/features/player/http/player-api.ts': "import express from 'express';\nexport const api = express;\n",
      'services/devices/src/main.ts': "import express from 'express';\nexport const app = express;\n",
      'services/devices/src/use-cases/ping.ts': "import express from 'express';\nexport const ping = express;\n",
      'gateway/src/ok.ts': "import { repo } from '../../services/devices/src/index.js';\nexport const ok = repo;\n",
      'gateway/src/deep.ts': "import { repo } from '../../services/devices/src/repositories/device.repository.js';\nexport const deep = repo;\n",
      'launcher/src/all-in-one.ts': "import { ok } from '../../gateway/src/ok.js';\nexport const start = ok;\n",
      'gateway/src/uses-launcher.ts': "import { start } from '../../launcher/src/all-in-one.js';\nexport const s = start;\n",
    },
    dirs: ['services', 'gateway', 'launcher'],
    reports: [
      /error gateway-sees-public-entries-only: gateway\/src\/deep\.ts/,
      /error gateway-sees-public-entries-only: gateway\/src\/uses-launcher\.ts/,
      /error launcher-is-the-top: gateway\/src\/uses-launcher\.ts/,
      /error http-in-http: services\/devices\/src\/use-cases\/ping\.ts/,
    ],
    spares: /gateway\/src\/ok\.ts|player-api\.ts|main\.ts|launcher\/src\/all-in-one\.ts →/,
  },
  'player-web imports nothing of the workspace; the gateway may import it': {
    files: {
      'services/kit/src/index.ts': 'export const kit = 1;\n',
      'player-web/src/index.ts': "export { files } from './files.js';\n",
      'player-web/src/files.ts': 'export const files = 1;\n',
      'player-web/src/uses-kit.ts': "import { kit } from '../../services/kit/src/index.js';\nexport const k = kit;\n",
      'gateway/src/serves.ts': "import { files } from '../../player-web/src/index.js';\nexport const served = files;\n",
    },
    dirs: ['services', 'gateway', 'player-web'],
    reports: [/error player-web-is-a-leaf: player-web\/src\/uses-kit\.ts/],
    spares: /gateway\/src\/serves\.ts →/,
  },
};

describe('layering (dependency-cruiser, .dependency-cruiser.cjs)', () => {
  test.each(Object.entries(LAYERING))('%s', (_name, c) => {
    fixture({ 'tsconfig.json': TSCONFIG, ...c.files });
    const r = run(bin('depcruise'), ['--config', join(root, '.dependency-cruiser.cjs'), ...(c.dirs ?? ['services'])]);
    for (const line of c.reports) expect(r.output).toMatch(line);
    if (c.spares) expect(r.output).not.toMatch(c.spares);
    if (c.passes) expect(r.status).toBe(0);
    else expect(r.status).not.toBe(0);
  });
});

describe('format (prettier --check, .prettierrc.json)', () => {
  const prettierCheck = (file: string) => run(bin('prettier'), ['--config', join(root, '.prettierrc.json'), '--check', file]);

  test('an unformatted file fails', () => {
    fixture({ 'src/unformatted.ts': 'export const greet = (name:string)=>{ return "hello " + name }\n' });
    const r = prettierCheck('src/unformatted.ts');
    expect(r.output).toMatch(/\[warn\] src\/unformatted\.ts/);
    expect(r.status).not.toBe(0);
  });

  test('a formatted file passes', () => {
    fixture({ 'src/formatted.ts': "export const greet = (name: string) => {\n  return 'hello ' + name;\n};\n" });
    expect(prettierCheck('src/formatted.ts').status).toBe(0);
  });
});

describe('lint (eslint, eslint.config.js)', () => {
  // Type-aware rules need the file in the TypeScript project; these cases lint text that exists
  // nowhere, so they run the repository config without type information.
  async function lint(path: string, code: string) {
    const { ESLint } = await import('eslint');
    const eslint = new ESLint({
      cwd: root,
      overrideConfig: {
        files: ['**/*.ts'],
        languageOptions: { parserOptions: { projectService: false } },
        rules: { '@typescript-eslint/no-floating-promises': 'off' },
      },
    });
    const [result] = await eslint.lintText(code, { filePath: join(root, path) });
    return result!.messages.map((m) => m.ruleId);
  }

  test('process.env outside a config module or composition root fails', async () => {
    const code = 'export const port = process.env.PORT;\n';
    expect(await lint('services/devices/src/use-cases/read-port.ts', code)).toContain('no-restricted-properties');
    expect(await lint('services/devices/src/config.ts', code)).toEqual([]);
    expect(await lint('services/devices/src/main.ts', code)).toEqual([]);
  });

  test('a storage operator outside a *.repository.ts fails (sealed repositories)', async () => {
    const code = "export const openAlerts = { status: { $in: ['open'] }, $or: [] };\n";
    expect(await lint('services/devices/src/use-cases/alerts/list-open.ts', code)).toContain('no-restricted-syntax');
    expect(await lint('services/devices/src/repositories/alert.repository.ts', code)).toEqual([]);
  });

  test('store.collection(...) outside a *.repository.ts fails, even without an operator (sealed repositories)', async () => {
    const code =
      "import type { DocumentStore } from '@pylon/kit';\nexport const keysOf = (store: DocumentStore) => store.collection({ name: 'oauthKeys' }).findById('system', 'k');\n";
    expect(await lint('services/identity/src/use-cases/oauth-keys.ts', code)).toContain('no-restricted-syntax');
    expect(await lint('services/identity/src/repositories/oauth-keys.repository.ts', code)).toEqual([]);
  });
});

describe('copy/paste (jscpd, .jscpd.json and the accepted clones in .jscpd-baseline.json)', () => {
  const jscpd = () => run(bin('jscpd'), ['-c', join(root, '.jscpd.json'), '--baseline', join(root, '.jscpd-baseline.json'), '--no-colors', 'services']);
  /** A rule of the size the group-tree, error-envelope and engine-call copies had. */
  const RULE = `import { AppError } from '@pylon/kit';

/** Level of a would-be child of parentId; refuses unknown parents, cycles and depth. */
export function childLevel(groups: Map<string, { parentId: string | null }>, parentId: string | null, movingId?: string): number {
  if (parentId === null) return 0;
  if (!groups.has(parentId)) throw new AppError('BAD_USER_INPUT', 'parent group was not found', { field: 'parentId' });
  let level = 1;
  for (let at: string | null = parentId; at !== null; at = groups.get(at)?.parentId ?? null) {
    if (at === movingId) throw new AppError('BAD_USER_INPUT', 'a group cannot be moved under itself', { field: 'parentId' });
    if (level > 10) break;
    level++;
  }
  if (level > 10) throw new AppError('BAD_USER_INPUT', 'groups nest at most 10 levels deep', { field: 'parentId' });
  return level - 1;
}
`;

  test('a rule copied into a second subgraph fails', () => {
    fixture({ 'services/devices/src/use-cases/device-groups.ts': RULE, 'services/content/src/use-cases/content-groups.ts': RULE });
    const r = jscpd();
    expect(r.status).toBe(1);
    expect(r.output).toMatch(/new clones/);
    expect(r.output).toContain('content-groups.ts');
  });

  test('the rule in one place passes; generated files are not read', () => {
    fixture({ 'services/kit/src/group-rules.ts': RULE, 'services/kit/src/generated/rules.generated.ts': RULE });
    expect(jscpd().status).toBe(0);
  });
});

describe('typed facades (npm run typecheck over the generated operation types)', () => {
  /**
   * A copy of the sources (package node_modules kept as their relative links, the root one linked),
   * so the copy's own compose and codegen write its own supergraph and generated types.
   */
  function copyTree(): void {
    for (const path of ['package.json', 'tsconfig.base.json', 'schema', 'scripts', 'services', 'rest-facade', 'legacy-adapter', 'client', 'console'])
      cpSync(join(root, path), join(dir, path), { recursive: true, verbatimSymlinks: true, filter: (src) => !/\/(data|dist|\.tmp)$/.test(src) });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: './tsconfig.base.json', compilerOptions: { noEmit: true }, include: ['rest-facade/src', 'legacy-adapter/src'] }),
    );
  }
  const edit = (path: string, from: RegExp, to: string) => {
    const text = readFileSync(join(dir, path), 'utf8');
    expect(text).toMatch(from);
    writeFileSync(join(dir, path), text.replace(from, to));
  };

  test('renaming a field or argument a facade reads (SDL and declared documents, then compose and codegen) fails the typecheck; the REST documents are generated', () => {
    copyTree();
    // Device.isOnline -> online in the devices subgraph, and in the documents that select it, as a
    // developer renaming the field would: the documents stay valid, only the facade code is stale.
    edit('services/devices/src/features/devices/devices.graphql', /^ {2}isOnline: Boolean!$/m, '  online: Boolean!');
    // The REST documents are written in the declarations (fragments.ts, the operation modules):
    // codegen writes the REST manifest (schema/operations/rest.manifest.json) from them.
    edit('rest-facade/src/operations/fragments.ts', /^( +)isOnline$/m, '$1online');
    // The legacy documents spread the same fragments (schema/operations/legacy: no copy to edit).
    // The same for a webhook endpoint's field (identity), read by the typed webhooks facade ...
    edit('services/identity/src/features/webhooks/webhooks.graphql', /^ {2}consecutiveFailures: Int!$/m, '  failures: Int!');
    // Every document that selects it (as the developer would find them), so the documents stay valid.
    for (const file of readdirSync(join(dir, 'rest-facade/src/operations')))
      if (/^ +consecutiveFailures$/m.test(readFileSync(join(dir, 'rest-facade/src/operations', file), 'utf8')))
        edit(`rest-facade/src/operations/${file}`, /^( +)consecutiveFailures$/m, '$1failures');
    // The typed client's and the console's documents select them too (a selection on its own line; their code is not typechecked here).
    const documents = (d: string): string[] =>
      readdirSync(join(dir, d), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? (e.name === 'gql' ? [] : documents(join(d, e.name))) : /\.(graphql|tsx?)$/.test(e.name) ? [join(d, e.name)] : [],
      );
    for (const file of [...documents('client/src/operations'), ...documents('console/src')]) {
      if (/^ +isOnline$/m.test(readFileSync(join(dir, file), 'utf8'))) edit(file, /^( +)isOnline$/gm, '$1online');
      if (/^ +consecutiveFailures$/m.test(readFileSync(join(dir, file), 'utf8'))) edit(file, /^( +)consecutiveFailures$/gm, '$1failures');
    }
    // ... and for an argument of claimDevice, which the facade maps body properties onto by name
    // (its document is derived from the mutation, so codegen follows the rename by itself).
    edit(
      'services/devices/src/features/pairing/pairing.graphql',
      /claimDevice\(code: String!, name: String, groupId: String, timeZone: String/,
      'claimDevice(code: String!, name: String, groupId: String, timezone: String',
    );
    // A misspelt variable in a hand-written operation's variables() (restOp): the document declares $deviceId.
    edit(
      'rest-facade/src/operations/device-commands.ts',
      /return \{ deviceId: params\.id, input: \{ sessionId/,
      'return { deviceID: params.id, input: { sessionId',
    );
    const tsx = bin('tsx');
    const compose = run(tsx, ['scripts/compose-supergraph.ts']);
    expect(compose.output).not.toMatch(/error/i);
    expect(compose.status).toBe(0);
    // The manifest is written from the declarations (a deleted one comes back); a declared standard
    // mutation's document is derived from it, and the one-file-per-document folder of before is removed.
    rmSync(join(dir, 'schema/operations/rest.manifest.json'));
    mkdirSync(join(dir, 'schema/operations/rest'));
    writeFileSync(join(dir, 'schema/operations/rest/deleteDevice.graphql'), 'mutation deleteDevice { x }\n');
    const codegen = run(tsx, ['scripts/codegen.ts']);
    expect(codegen.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, 'schema/operations/rest.manifest.json'), 'utf8')) as { operations: { name: string; body: string }[] };
    expect(manifest.operations.find((o) => o.name === 'deleteDevice')?.body).toMatch(
      /^mutation deleteDevice\(\$id: ID!\) \{\n {2}deleteDevice\(id: \$id\) \{\n {4}success\n {4}error\n {4}errorCode\n {4}errorField\n {4}deviceId\n/,
    );
    expect(readdirSync(join(dir, 'schema/operations'))).not.toContain('rest');
    expect(readFileSync(join(dir, 'services/kit/src/generated/rest-operations.generated.ts'), 'utf8')).toMatch(/RestDeviceFragment = \{[^}]*\bonline: boolean/);
    // The facades' sources only (and what they import): the whole tree's typecheck is CI's own check.
    writeFileSync(join(dir, 'tsconfig.facades.json'), JSON.stringify({ extends: './tsconfig.json', include: ['rest-facade/src'] }));
    const tsc = run(bin('tsc'), ['-p', 'tsconfig.facades.json']);
    // The REST mapper still reads d.isOnline (rest-facade/src/operations/devices.ts, inSync).
    expect(tsc.output).toMatch(/rest-facade\/src\/operations\/devices\.ts\(\d+,\d+\): error TS\d+: Property 'isOnline' does not exist on type 'DeviceData'/);
    expect(tsc.output).toMatch(/rest-facade\/src\/operations\/webhooks\.ts\(\d+,\d+\): error TS\d+: Property 'consecutiveFailures' does not exist on type/);
    // claimDevice's body map still names the old argument: no overload of createOp takes it.
    expect(tsc.output).toMatch(/rest-facade\/src\/operations\/device-writes\.ts\(\d+,\d+\): error TS\d+/);
    expect(tsc.output).toMatch(/'"timeZone"'/);
    expect(tsc.output).toMatch(
      /rest-facade\/src\/operations\/device-commands\.ts\(\d+,\d+\): error TS\d+:[\s\S]*?'deviceID' is not a variable of trackDeviceEvent/,
    );
    expect(tsc.status).not.toBe(0);
  }, 300_000);
});

describe('subgraph layout (scripts/check-layout.ts and the table "Inside a subgraph" of docs/development.md)', () => {
  /** Every subgraph with every required entry of the skeleton. */
  const skeleton = () => {
    const files: Record<string, string> = {};
    for (const sg of SUBGRAPHS)
      for (const e of SKELETON.filter((x) => x.required))
        files[`services/${sg}/src/${e.name}${e.name === 'features/' ? 'f/x.ts' : e.name.endsWith('/') ? 'x.ts' : ''}`] = 'export {};\n';
    return files;
  };

  test('the repository follows it, and docs/development.md documents exactly it', () => {
    expect(layoutProblems(root)).toEqual([]);
    expect(readmeProblems(readFileSync(join(root, 'docs', 'development.md'), 'utf8'))).toEqual([]);
  });

  test('a folder or file outside the skeleton fails, so does a missing one; optional entries and role entries pass', () => {
    fixture(skeleton());
    expect(layoutProblems(dir)).toEqual([]);
    fixture({ 'services/analytics/src/ingest.main.ts': '', 'services/devices/src/ports/x.ts': '', 'services/identity/src/admin.cli.ts': '' });
    expect(layoutProblems(dir)).toEqual([]);
    fixture({ 'services/content/src/player/player-api.ts': '', 'services/devices/src/device.repository.ts': '' });
    rmSync(join(dir, 'services/datatables/src/shared'), { recursive: true });
    expect(layoutProblems(dir)).toEqual([
      expect.stringMatching(/^services\/devices\/src\/device\.repository\.ts is not in the subgraph skeleton/),
      expect.stringMatching(/^services\/content\/src\/player\/ is not in the subgraph skeleton/),
      'services/datatables/src/shared/ is missing (every subgraph has one)',
    ]);
  });

  test('a subgraph has features/ and shared/ and no layered folder; a feature holds its parts, http/ and test/ only', () => {
    fixture(skeleton());
    fixture({
      'services/identity/src/features/webhooks/webhooks.graphql': '',
      'services/identity/src/features/webhooks/resolvers.ts': '',
      'services/identity/src/features/webhooks/http/events.http.ts': '',
      'services/identity/src/features/webhooks/test/webhooks.test.ts': '',
      'services/identity/src/shared/schema.graphql': '',
    });
    expect(layoutProblems(dir)).toEqual([]);
    fixture({
      'services/identity/src/use-cases/x.ts': '',
      'services/identity/src/features/webhooks/workers/x.ts': '',
      'services/identity/src/features/empty/notes.md': '',
    });
    rmSync(join(dir, 'services/identity/src/shared'), { recursive: true });
    expect(layoutProblems(dir)).toEqual([
      expect.stringMatching(/^services\/identity\/src\/use-cases\/ is not in the subgraph skeleton/),
      'services/identity/src/shared/ is missing (every subgraph has one)',
      'services/identity/src/features/empty/notes.md: a feature holds *.graphql, *.ts, http/ and test/ only',
      'services/identity/src/features/empty/ has no module',
      'services/identity/src/features/webhooks/workers/: a feature holds *.graphql, *.ts, http/ and test/ only',
    ]);
  });

  test('the docs table drifting from the skeleton fails', () => {
    const table = (names: string[]) =>
      `# x\n\n### Inside a subgraph\n\n| entry | what |\n|---|---|\n${names.map((n) => `| \`${n}\` | ... |`).join('\n')}\n\n## Next\n`;
    const names = SKELETON.map((e) => e.name);
    expect(readmeProblems(table(names))).toEqual([]);
    expect(readmeProblems(table(names.filter((n) => n !== 'workers/')))).toEqual([
      expect.stringMatching(/lists .* the skeleton \(scripts\/check-layout\.ts\) is/),
    ]);
  });
});
