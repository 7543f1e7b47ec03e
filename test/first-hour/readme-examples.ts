/**
 * The README's shell examples as one bash script, run the way a reader would: block after block in
 * one shell, from the repository, against a started server.
 *
 * - Every ```sh block runs unless the line before it is `<!-- readme-test: skip (reason) -->`
 *   (the reason says what it needs that a test does not have: a browser, a second process, the internet).
 * - A line assigning a value with `...` in it (`KEY=pyl_...   # the key npm start printed`) is what the
 *   reader fills in: the test leaves it out and gives the variable in the environment instead.
 * - The documented addresses 127.0.0.1:4000 and :4080 become the started server's ports.
 * - Runnable blocks may not name any other host (that would need the internet): mark them skipped.
 */
export interface ReadmeBlock {
  /** 1-based line of the opening fence in README.md. */
  line: number;
  body: string;
  skip?: string;
}

const FENCE = /^```(\w*)\s*$/;
const SKIP = /^<!--\s*readme-test:\s*skip\s*\((.+)\)\s*-->\s*$/;
export const FILL_IN = /^\s*([A-Z][A-Z0-9_]*)=\S*\.\.\.(\s|$)/;

export function readmeBlocks(readme: string): ReadmeBlock[] {
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
    blocks.push({ line: start + 1, body: lines.slice(start + 1, end).join('\n'), ...(skip ? { skip } : {}) });
  }
  return blocks;
}

/** Hosts a runnable block names other than the local server (each would need the internet). */
export function foreignHosts(body: string): string[] {
  return [...body.matchAll(/https?:\/\/([^/:\s"'`]+)/g)].map((m) => m[1]!).filter((h) => h !== '127.0.0.1' && h !== 'localhost');
}

export function readmeScript(blocks: ReadmeBlock[], ports: { port: number; legacyPort: number }): string {
  const out = [
    'set -eo pipefail',
    // The failing command and where it is in the README.
    `trap 'echo "README example failed at README.md block line $BLOCK: $BASH_COMMAND" >&2' ERR`,
  ];
  for (const b of blocks) {
    if (b.skip) continue;
    const body = b.body
      .split('\n')
      .map((l) => (FILL_IN.test(l) ? `# (filled in by the test: ${FILL_IN.exec(l)![1]})` : l))
      .join('\n')
      .replaceAll('127.0.0.1:4000', `127.0.0.1:${ports.port}`)
      .replaceAll('127.0.0.1:4080', `127.0.0.1:${ports.legacyPort}`);
    out.push(`BLOCK=${b.line}`, `echo; echo "### README.md:${b.line}"`, body);
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
