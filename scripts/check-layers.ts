/**
 * Layering rules (STYLE.md habit 9), checked over every source file:
 *  1. drivers (lmdb, mingo, mongoose, chdb, @clickhouse/client, kafkajs, ioredis) only in kit adapters;
 *  2. adapters only from composition roots (main.ts, all-in-one.ts, kit composition/) and tests;
 *  3. domain/ imports no adapters, GraphQL, use-cases or drivers;
 *  4. the facades never import a service or the gateway;
 *  5. process.env only in composition roots, config and scripts;
 *  6. `@pylon/kit/testing` only from tests and benchmarks.
 *  7. no import cycle inside a service's src/ (type imports count: they tie modules as tightly);
 *  8. sealed repositories: in the SEALED services, Mongo-style operators appear only in *.repository.ts
 *     (use cases and resolvers call intent-named repository methods, never raw collections).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const DRIVERS = ['lmdb', 'mingo', 'mongoose', 'chdb', '@clickhouse/client', 'kafkajs', 'ioredis'];
const SERVICES = ['devices', 'content', 'scheduling', 'datatables', 'analytics', 'identity'];

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

const roots = ['services', 'gateway', 'rest-facade', 'legacy-adapter', 'bench'].map((d) => join(root, d));
const problems: string[] = [];
const importRe = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

for (const r of roots) {
  let list: string[];
  try {
    list = [...files(r)];
  } catch {
    continue;
  }
  for (const file of list) {
    const rel = relative(root, file);
    const src = readFileSync(file, 'utf8');
    const isTest = rel.includes('/test/');
    const isRoot = /(^|\/)([\w-]+\.)?main\.ts$/.test(rel) || rel === 'gateway/src/all-in-one.ts' || rel.startsWith('services/kit/src/composition/') || rel.startsWith('bench/');
    const isAdapter = rel.startsWith('services/kit/src/adapters/');
    const isDomain = rel.includes('/src/domain/');
    const isFacade = rel.startsWith('rest-facade/') || rel.startsWith('legacy-adapter/');
    for (const m of src.matchAll(importRe)) {
      const spec = (m[1] ?? m[2])!;
      const driver = DRIVERS.find((d) => spec === d || spec.startsWith(`${d}/`));
      if (driver && !isAdapter && !isTest) problems.push(`${rel}: imports driver '${spec}' outside services/kit/src/adapters`);
      const adapterImport = spec.startsWith('@pylon/kit/adapters/') || (/(^|\/)adapters\//.test(spec) && spec.startsWith('.'));
      if (adapterImport && !isRoot && !isTest && !isAdapter) problems.push(`${rel}: imports an adapter ('${spec}'); only composition roots may`);
      if (spec === '@pylon/kit/testing' && !isTest && !rel.startsWith('bench/')) problems.push(`${rel}: imports test support ('${spec}')`);
      if (isDomain && (adapterImport || driver || spec === 'graphql' || spec.includes('/graphql/') || spec.includes('use-cases') || spec === 'express')) {
        problems.push(`${rel}: domain code imports '${spec}'`);
      }
      if (isFacade && !isTest && (SERVICES.some((s) => spec === `@pylon/${s}` || spec.startsWith(`@pylon/${s}/`)) || spec.startsWith('@pylon/gateway'))) {
        problems.push(`${rel}: a facade imports '${spec}'`);
      }
    }
    const allowEnv = isRoot || isTest || rel.endsWith('/config.ts') || rel.startsWith('services/kit/src/config.ts');
    if (!allowEnv && /process\.env\b/.test(src.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ''))) problems.push(`${rel}: reads process.env outside a composition root or config`);
  }
}

// 7. Import cycles, per service (relative imports only; a cycle through kit cannot start in a service).
const relImportRe = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/g;
for (const service of SERVICES) {
  const src = join(root, 'services', service, 'src');
  const graph = new Map<string, string[]>();
  for (const f of files(src)) graph.set(f, [...readFileSync(f, 'utf8').matchAll(relImportRe)].map((m) => join(f, '..', m[1]!.replace(/\.js$/, '.ts'))));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const to of graph.get(f) ?? []) {
      if (!graph.has(to)) continue;
      if (state.get(to) === 'open') problems.push(`import cycle: ${[...stack.slice(stack.indexOf(to)), to].map((x) => relative(root, x)).join(' -> ')}`);
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
}

// 8. Sealed repositories. Identity is not sealed yet (its use cases still reach into collections).
const SEALED = ['devices', 'content', 'scheduling', 'datatables', 'analytics'];
const mongoOperatorRe = /['"{,\s]\$(set|unset|in|nin|ne|eq|gt|gte|lt|lte|or|and|not|nor|exists|regex|elemMatch|all|size)['"]?\s*:/;
for (const service of SEALED) {
  for (const f of files(join(root, 'services', service, 'src'))) {
    if (f.endsWith('.repository.ts') || f.endsWith('.generated.ts')) continue;
    const code = readFileSync(f, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
    const hit = code.match(mongoOperatorRe);
    if (hit) problems.push(`${relative(root, f)}: uses the storage operator '$${hit[1]}' outside a *.repository.ts (give the repository an intent-named method)`);
  }
}

if (problems.length) {
  console.error(`layering check failed:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log('layering rules hold');
