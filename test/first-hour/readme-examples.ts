/**
 * The shell examples of the README and of the docs pages as one bash script, run the way a reader
 * would: page after page in DOC_PAGES order, block after block, in one shell, from the repository,
 * against a started server (variables set on one page, such as $RK or $MEDIA, carry to the next).
 *
 * - Every ```sh block runs unless the line before it is `<!-- readme-test: skip (reason) -->`
 *   (the reason says what it needs that a test does not have: a browser, a second process, the internet).
 * - A line assigning a value with `...` in it (`KEY=pyl_...   # the key npm start printed`) is what the
 *   reader fills in: the test leaves it out and gives the variable in the environment instead.
 * - Each page's examples name the server as $BASE and $LEGACY, set once at their top
 *   (`BASE=http://127.0.0.1:4000`, `LEGACY=http://127.0.0.1:4080`): the test sets those two lines to the
 *   started server's ports, and no runnable block may name 127.0.0.1:4000 or :4080 anywhere else.
 * - Runnable blocks may not name any other host (that would need the internet): mark them skipped.
 * - Every Markdown page of the repository's docs is in DOC_PAGES, so a moved block is never left unrun.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The pages whose examples run, in this order (the README's map of the docs), in one shell. */
export const DOC_PAGES = [
  'README.md',
  'docs/player.md',
  'docs/console.md',
  'docs/fleet-operations.md',
  'docs/devices.md',
  'docs/telemetry-and-analytics.md',
  'docs/webhooks-and-events.md',
  'docs/content.md',
  'docs/data-tables.md',
  'docs/access.md',
  'docs/agents.md',
  'docs/operations-and-deployment.md',
  'docs/operations/README.md',
  'docs/operations/clickhouse.md',
  'docs/operations/delivery-guarantees.md',
  'docs/operations/deployment.md',
  'docs/operations/mongodb.md',
  'docs/operations/publishing-and-spools.md',
  'docs/operations/self-check.md',
  'docs/SECURITY.md',
  'docs/development.md',
  'docs/contributing.md',
  'docs/interface-notes.md',
] as const;

export interface ReadmeBlock {
  /** The page, relative to the repository (README.md, docs/...). */
  file: string;
  /** 1-based line of the opening fence in that page. */
  line: number;
  body: string;
  skip?: string;
}

const FENCE = /^```(\w*)\s*$/;
const SKIP = /^<!--\s*readme-test:\s*skip\s*\((.+)\)\s*-->\s*$/;
export const FILL_IN = /^\s*([A-Z][A-Z0-9_]*)=\S*\.\.\.(\s|$)/;

export function readmeBlocks(readme: string, file = 'README.md'): ReadmeBlock[] {
  const lines = readme.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    i = end;
    if (open[1] !== 'sh') continue;
    let prev = start - 1;
    while (prev >= 0 && lines[prev]!.trim() === '') prev--;
    const skip = prev >= 0 ? SKIP.exec(lines[prev]!)?.[1] : undefined;
    blocks.push({ file, line: start + 1, body: lines.slice(start + 1, end).join('\n'), ...(skip ? { skip } : {}) });
  }
  return blocks;
}

/** Hosts a runnable block names other than the local server (each would need the internet). */
export function foreignHosts(body: string): string[] {
  return [...body.matchAll(/https?:\/\/([^/:\s"'`]+)/g)].map((m) => m[1]!).filter((h) => h !== '127.0.0.1' && h !== 'localhost');
}

/** Every block of every page, in DOC_PAGES order. */
export function docsBlocks(root: string): ReadmeBlock[] {
  return DOC_PAGES.flatMap((file) => readmeBlocks(readFileSync(join(root, file), 'utf8'), file));
}

/** Markdown pages under docs/ (and README.md) that DOC_PAGES leaves out: their examples would never run. */
export function unlistedPages(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [relative(root, join(dir, e.name))] : [],
    );
  const listed = new Set<string>(DOC_PAGES);
  return ['README.md', ...walk(join(root, 'docs'))].filter((f) => !listed.has(f)).sort();
}

const BASE_LINE = /^BASE=http:\/\/127\.0\.0\.1:4000(?=\s|$)/;
const LEGACY_LINE = /^LEGACY=http:\/\/127\.0\.0\.1:4080(?=\s|$)/;

/** Lines of a block naming the documented server other than through the BASE / LEGACY assignments. */
export function hardCodedAddresses(body: string): string[] {
  return body.split('\n').filter((l) => /127\.0\.0\.1:40[08]0/.test(l) && !BASE_LINE.test(l) && !LEGACY_LINE.test(l));
}

/** The marker the script prints before each block it runs. */
export const blockMarker = (b: Pick<ReadmeBlock, 'file' | 'line'>) => `### ${b.file}:${b.line}`;

/** How many blocks of each page the script's output says it ran. */
export function blocksRun(stdout: string): Record<string, number> {
  const ran: Record<string, number> = {};
  for (const m of stdout.matchAll(/^### (\S+\.md):\d+$/gm)) ran[m[1]!] = (ran[m[1]!] ?? 0) + 1;
  return ran;
}

export function readmeScript(blocks: ReadmeBlock[], ports: { port: number; legacyPort: number }): string {
  const out = [
    'set -eo pipefail',
    // The failing command and where it is in the docs.
    `trap 'echo "docs example failed at $BLOCK: $BASH_COMMAND" >&2' ERR`,
  ];
  for (const b of blocks) {
    if (b.skip) continue;
    const body = b.body
      .split('\n')
      .map((l) => (FILL_IN.test(l) ? `# (filled in by the test: ${FILL_IN.exec(l)![1]})` : l))
      .map((l) => l.replace(BASE_LINE, `BASE=http://127.0.0.1:${ports.port}`).replace(LEGACY_LINE, `LEGACY=http://127.0.0.1:${ports.legacyPort}`))
      .join('\n');
    out.push(`BLOCK=${b.file}:${b.line}`, `echo; echo "${blockMarker(b)}"`, body);
  }
  out.push('echo "### README examples done"');
  return out.join('\n') + '\n';
}

/**
 * The `curl` the examples meet: the real one with --fail-with-body, and a GraphQL answer carrying
 * `errors` or `"success":false` fails too, so an example that no longer works fails the test.
 */
export function curlShim(realCurl: string): string {
  return `#!/usr/bin/env bash
body=$(mktemp)
rc=0
${realCurl} --fail-with-body "$@" > "$body" || rc=$?
where=$(printf '%s\\n' "$@" | grep -E '^https?://' | sed -E 's/(api_key=)[^&]*/\\1***/' | head -1)
if [ "$rc" -ne 0 ]; then
  echo "curl $where failed (exit $rc): $(head -c 1500 "$body")" >&2; rm -f "$body"; exit "$rc"
fi
if [[ "$where" == */graphql* ]] && grep -qE '"errors":\\[|"success":false' "$body"; then
  echo "curl $where answered an error: $(head -c 1500 "$body")" >&2; rm -f "$body"; exit 1
fi
cat "$body"; rm -f "$body"
`;
}
