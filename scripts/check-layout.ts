/**
 * `npm test`'s layout check: every subgraph's src/ has the same skeleton, and the table
 * "Inside a subgraph" of docs/development.md documents exactly that skeleton (names here, what each holds there).
 * Every subgraph is sliced by feature (issue 36): features/<feature>/ holds a feature's SDL part,
 * resolvers, use cases, repository, routes (http/) and tests, shared/ what several features use; the
 * layered folders (use-cases/, repositories/, graphql/, a top-level http/) are gone from all six.
 *   tsx scripts/check-layout.ts          prints each drift and exits 1, else one line and 0
 * A new top-level folder or file in a subgraph fails until it is moved into the skeleton, or the
 * skeleton (SKELETON below and the docs/development.md table) changes for every subgraph at once.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SUBGRAPHS = ['devices', 'content', 'scheduling', 'datatables', 'analytics', 'identity'] as const;

interface Entry {
  /** As docs/development.md writes it: `domain/` a folder, `<role>.main.ts` any file of that shape. */
  name: string;
  /** true: every subgraph has it; false: where the subgraph needs one. */
  required: boolean;
}

/** The top-level entries of services/<subgraph>/src, in the order of docs/development.md. */
export const SKELETON: readonly Entry[] = [
  { name: 'index.ts', required: true },
  { name: 'app.ts', required: true },
  { name: 'main.ts', required: true },
  { name: 'config.ts', required: true },
  { name: 'runtime.ts', required: false },
  { name: '<role>.main.ts', required: false },
  { name: '<role>.config.ts', required: false },
  { name: '<name>.cli.ts', required: false },
  { name: 'domain/', required: true },
  { name: 'features/', required: true },
  { name: 'shared/', required: true },
  { name: 'ports/', required: false },
  { name: 'adapters/', required: false },
  { name: 'workers/', required: false },
];

const matches = (entry: Entry, name: string, isDir: boolean): boolean => {
  if (entry.name.endsWith('/')) return isDir && name === entry.name.slice(0, -1);
  if (isDir) return false;
  const m = /^<\w+>(\..+)$/.exec(entry.name);
  return m ? name.endsWith(m[1]!) && name.length > m[1]!.length && !SKELETON.some((e) => e.name === name) : name === entry.name;
};

/** Every way the subgraphs under `root` drift from the skeleton (empty when none). */
export function layoutProblems(root: string): string[] {
  const problems: string[] = [];
  for (const sg of SUBGRAPHS) {
    const src = join(root, 'services', sg, 'src');
    if (!existsSync(src)) {
      problems.push(`services/${sg}/src is missing`);
      continue;
    }
    const entries = readdirSync(src, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (!SKELETON.some((s) => matches(s, e.name, e.isDirectory())))
        problems.push(
          `services/${sg}/src/${e.name}${e.isDirectory() ? '/' : ''} is not in the subgraph skeleton (docs/development.md "Inside a subgraph"): move it into one of ${SKELETON.map((s) => s.name).join(', ')}`,
        );
    }
    for (const s of SKELETON) {
      if (s.required && !entries.some((e) => matches(s, e.name, e.isDirectory())))
        problems.push(`services/${sg}/src/${s.name} is missing (every subgraph has one)`);
    }
    if (existsSync(join(src, 'features'))) problems.push(...featureProblems(join(src, 'features'), `services/${sg}/src/features`));
  }
  return problems;
}

/** What a feature folder may hold: its SDL part, its modules, its routes (http/) and its tests (test/). */
function featureProblems(dir: string, shown: string): string[] {
  const problems: string[] = [];
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    if (!f.isDirectory()) {
      problems.push(`${shown}/${f.name}: features/ holds one folder per feature, no files`);
      continue;
    }
    const entries = readdirSync(join(dir, f.name), { withFileTypes: true });
    for (const e of entries) {
      const ok = e.isDirectory() ? e.name === 'http' || e.name === 'test' : e.name.endsWith('.ts') || e.name.endsWith('.graphql');
      if (!ok) problems.push(`${shown}/${f.name}/${e.name}${e.isDirectory() ? '/' : ''}: a feature holds *.graphql, *.ts, http/ and test/ only`);
    }
    if (!entries.some((e) => e.isFile() && e.name.endsWith('.ts'))) problems.push(`${shown}/${f.name}/ has no module`);
  }
  return problems;
}

/** The first-column names of docs/development.md's "Inside a subgraph" table. */
export function readmeSkeleton(readme: string): string[] {
  const at = readme.indexOf('\n### Inside a subgraph\n');
  if (at < 0) return [];
  const rows: string[] = [];
  for (const line of readme.slice(at).split('\n').slice(2)) {
    if (line.startsWith('#')) break;
    const m = /^\| `([^`]+)`/.exec(line);
    if (m) rows.push(m[1]!);
  }
  return rows;
}

export function readmeProblems(readme: string): string[] {
  const documented = readmeSkeleton(readme);
  const names = SKELETON.map((s) => s.name);
  return documented.join('\n') === names.join('\n')
    ? []
    : [`docs/development.md "Inside a subgraph" lists ${documented.join(', ') || 'nothing'}; the skeleton (scripts/check-layout.ts) is ${names.join(', ')}`];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
  const problems = [...layoutProblems(root), ...readmeProblems(readFileSync(join(root, 'docs', 'development.md'), 'utf8'))];
  for (const p of problems) process.stderr.write(`${p}\n`);
  if (problems.length) process.exit(1);
  process.stdout.write(`${SUBGRAPHS.length} subgraphs follow the skeleton of ${SKELETON.length} entries\n`);
}
