/**
 * The Dockerfile, linted without a Docker engine: dockerfile-utils (the validator of the VS Code
 * Docker language service: syntax, arguments, deprecated instructions, every rule as an error),
 * then the image's own rules on its instructions (hadolint is in neither Debian nor npm here):
 * pinned bases on Node 24, multi-stage with production dependencies only, compiled entry (no
 * tsx or package manager at run time), exec-form entrypoint, non-root user, every workspace
 * package's manifest in the dependency layer, every compiled package in the runtime image, and a
 * .dockerignore that keeps local state out.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { parse } from 'yaml';
import { ROOT } from './deploy.helpers.js';

const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');

/** Instructions with continuation lines joined and comments dropped. */
function instructions(src: string): Array<{ keyword: string; args: string }> {
  const out: Array<{ keyword: string; args: string }> = [];
  let pending = '';
  for (const raw of src.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    pending += (pending ? ' ' : '') + line.replace(/\\$/, '').trim();
    if (line.endsWith('\\')) continue;
    const m = /^(\S+)\s*(.*)$/.exec(pending);
    if (m) out.push({ keyword: m[1]!.toUpperCase(), args: m[2]! });
    pending = '';
  }
  return out;
}

const all = instructions(text);
const args = Object.fromEntries(all.filter((i) => i.keyword === 'ARG').map((i) => i.args.split('=') as [string, string]));
const stages: Array<{ from: string; name: string | undefined; body: typeof all }> = [];
for (const i of all) {
  if (i.keyword === 'FROM') {
    const [image, , name] = i.args.split(/\s+/);
    stages.push({ from: image!.replace(/\$\{(\w+)\}/g, (_m, a: string) => args[a] ?? ''), name, body: [] });
  } else stages.at(-1)?.body.push(i);
}
const runtime = stages.at(-1)!;

describe('Dockerfile', () => {
  test('dockerfile-utils reports nothing, every rule as an error', () => {
    const S = ValidationSeverity.ERROR;
    const diagnostics = validate(text, {
      deprecatedMaintainer: S,
      directiveCasing: S,
      emptyContinuationLine: S,
      instructionCasing: S,
      instructionCmdMultiple: S,
      instructionEntrypointMultiple: S,
      instructionHealthcheckMultiple: S,
      instructionJSONInSingleQuotes: S,
      instructionWorkdirRelative: S,
    });
    expect(diagnostics.map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  test('multi-stage on a pinned Node 24 base; the runtime stage copies compiled output and production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    for (const s of stages.filter((x) => !stages.some((y) => y.name === x.from))) expect(s.from).toMatch(/^node:24\.\d+\.\d+-[a-z]+-slim$/);
    const copies = runtime.body.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies.every((c) => c.startsWith('--from='))).toBe(true);
    const deps = stages.find((s) => s.name === 'deps')!;
    expect(deps.body.map((i) => i.args).join('\n')).toMatch(/pnpm install .*--prod/);
    expect(copies.some((c) => c.startsWith('--from=deps '))).toBe(true);
    expect(
      stages
        .find((s) => s.name === 'build')!
        .body.map((i) => i.args)
        .join('\n'),
    ).toContain('scripts/build.cjs');
  });

  test('runs the compiled role runner with plain node, as a non-root user, in exec form', () => {
    const entry = runtime.body.filter((i) => i.keyword === 'ENTRYPOINT');
    expect(entry).toHaveLength(1);
    const argv = JSON.parse(entry[0]!.args) as string[];
    expect(argv).toEqual(['node', '--conditions=pylon-dist', 'launcher/dist/role.main.js']);
    const cmd = runtime.body.find((i) => i.keyword === 'CMD');
    expect(JSON.parse(cmd!.args)).toEqual(['all-in-one']);
    const users = runtime.body.filter((i) => i.keyword === 'USER').map((i) => i.args);
    expect(users.at(-1)).toMatch(/^[1-9]\d*(:[1-9]\d*)?$/);
    expect(text).not.toMatch(/\btsx\b|pnpm exec|npx /);
    expect(runtime.body.some((i) => i.keyword === 'VOLUME' && i.args.includes('/data'))).toBe(true);
  });

  test('tools installed by version; every workspace package manifest is in the dependency layer, every compiled package in the image', () => {
    for (const i of all.filter((x) => x.keyword === 'RUN' && /\bnpm install/.test(x.args))) expect(i.args).toMatch(/pnpm@\d+\.\d+\.\d+/);
    // The workspace's own list (pnpm-workspace.yaml), so a new package cannot be forgotten here.
    const globs = (parse(readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8')) as { packages: string[] }).packages;
    const packages = globs.flatMap((g) => (g.endsWith('/*') ? readdirSync(join(ROOT, g.slice(0, -2))).map((d) => `${g.slice(0, -2)}/${d}`) : [g]));
    expect(packages).toEqual(expect.arrayContaining(['gateway', 'player-web', 'launcher', 'services/kit']));
    const copied = all.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    for (const p of packages.filter((d) => existsSync(join(ROOT, d, 'package.json')))) expect(copied).toContain(`${p}/package.json ${p}/`);
    // Every package `npm run build` compiles (scripts/dist.cjs) reaches the runtime image.
    const build = all.find((i) => i.keyword === 'RUN' && i.args.includes('scripts/build.cjs'))!.args;
    const { PACKAGES } = createRequire(join(ROOT, 'package.json'))('./scripts/dist.cjs') as { PACKAGES: string[] };
    for (const p of PACKAGES) expect(build.split(/\s+/)).toContain(p.startsWith('services/') ? 'services/*/dist' : `${p}/dist`);
  });

  test('.dockerignore keeps local installs, build output, data, secrets and VCS metadata out', () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['.git', '**/node_modules', '**/dist', 'data', '.tmp', '**/*.env', '**/test']) expect(ignore).toContain(p);
  });
});
