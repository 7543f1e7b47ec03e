/**
 * Layering rules (STYLE.md habit 9), checked over every source file:
 *  1. drivers: lmdb and mingo (the embedded document store) only in kit adapters; mongoose, chdb,
 *     @clickhouse/client, kafkajs and ioredis only in @pylon/adapters (services/adapters/src);
 *  2. adapters only from composition roots (main.ts, all-in-one.ts, kit composition/) and tests;
 *  3. domain/ imports no adapters, GraphQL, use-cases or drivers;
 *  4. the facades never import a service or the gateway;
 *  5. process.env only in composition roots, config and scripts;
 *  6. `@pylon/kit/testing` only from tests and benchmarks.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const KIT_DRIVERS = ['lmdb', 'mingo'];
const DRIVERS = [...KIT_DRIVERS, 'mongoose', 'chdb', '@clickhouse/client', 'kafkajs', 'ioredis'];
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
    const isKitAdapter = rel.startsWith('services/kit/src/adapters/');
    const isAdapter = isKitAdapter || rel.startsWith('services/adapters/src/');
    const isDomain = rel.includes('/src/domain/');
    const isFacade = rel.startsWith('rest-facade/') || rel.startsWith('legacy-adapter/');
    for (const m of src.matchAll(importRe)) {
      const spec = (m[1] ?? m[2])!;
      const driver = DRIVERS.find((d) => spec === d || spec.startsWith(`${d}/`));
      const driverHome = driver && KIT_DRIVERS.includes(driver) ? isKitAdapter : rel.startsWith('services/adapters/src/');
      if (driver && !driverHome && !isTest) problems.push(`${rel}: imports driver '${spec}' outside its adapters`);
      const adapterImport = spec.startsWith('@pylon/kit/adapters/') || spec.startsWith('@pylon/adapters/') || (/(^|\/)adapters\//.test(spec) && spec.startsWith('.'));
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

if (problems.length) {
  console.error(`layering check failed:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log('layering rules hold');
