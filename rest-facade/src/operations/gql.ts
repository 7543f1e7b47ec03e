/**
 * The GraphQL document of a REST operation, written in its declaration:
 *
 *   restOp('getAccount', { document: gql`
 *     query getAccount { account { id name } }
 *   `, ... })
 *
 * `npm run codegen` writes it into schema/operations/rest.manifest.json (what the facade and the
 * gateway read at run time) and generates the operation types from it; `npm run codegen:check`
 * fails when the committed manifest differs. No `${...}`: a document is static text, so the
 * manifest and the declaration cannot say different things.
 */
export function gql(strings: TemplateStringsArray, ...values: never[]): string {
  if (values.length) throw new Error('gql documents take no ${...} values');
  return dedent(strings.raw.join(''));
}

/** The text without the indentation its lines share, without leading blank lines, ending in one newline. */
export function dedent(text: string): string {
  const lines = text
    .replace(/^\s*\n/, '')
    .trimEnd()
    .split('\n');
  const indents = lines.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return `${lines.map((l) => l.slice(cut).trimEnd()).join('\n')}\n`;
}
