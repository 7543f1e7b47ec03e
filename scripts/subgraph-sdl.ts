/**
 * A sliced subgraph's SDL, generated from its parts (issue 36, item 1): the subgraph's head
 * (services/<name>/src/shared/schema.graphql: the federation link, the directives, types several
 * features use), then each feature's part (services/<name>/src/features/<feature>/*.graphql, in
 * folder order), then the shared blocks of schema/shared/*.graphql the parts use, spliced between
 * their `# >>> shared:NAME` / `# <<< shared:NAME` markers (filters, payloads, JSON Patch, the @policy directive).
 *
 * A part writes its own root fields as `type Query { ... }` / `type Mutation { ... }`; the generated
 * file has one `Query` and one `Mutation` (codegen, the @policy table and the supergraph read plain
 * types), the fields in part order (a description of the root type, in one part, goes with it). A shared block is spliced in when its types are named by the
 * parts (or by a block spliced in), so a subgraph carries exactly the blocks it uses.
 *
 * A block several types repeat (the payload fields, a group type, a filter's field list) is written once
 * as a template, `# >>> template:NAME(Param, ...)` ... `# <<< template:NAME`, in schema/shared/*.graphql
 * (for every subgraph), in the subgraph's head (for its parts) or in a feature's part (for that part
 * only); a template is not emitted where it is written, and a template of a head or part must be used. It is
 * used where it goes by a line `# use:NAME(Param: value, ...)`: the line becomes the template's body,
 * each `$Param` replaced by its value and each line indented as the use line is. Unlike a shared block
 * it leaves no marker, so the generated SDL reads as if written out.
 *
 * compose-supergraph.ts writes the result to schema/subgraphs/<name>.graphql (`npm run compose`)
 * and fails on drift (`npm run compose:check`). A subgraph without a features/ folder keeps its
 * hand-written schema/subgraphs file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SharedBlock {
  file: string;
  body: string;
}

export const SHARED_BLOCK_RE = /# >>> shared:(\S+)\n([\s\S]*?)# <<< shared:\1\n/g;
/** A template: its name, its parameters and its body. */
const TEMPLATE_RE = /^# >>> template:([\w-]+)(?:\(([^)\n]*)\))?\n([\s\S]*?)^# <<< template:\1\n\n?/gm;
/** A use of a template: the indentation, the name and the arguments. */
const USE_RE = /^([ \t]*)# use:([\w-]+)(?:\(([^)\n]*)\))?[ \t]*\n/gm;
/** A root type of a part, with its description: starting the part or after a blank line, the description holding no other description. */
const ROOT_TYPE_RE = /(?<=^|\n\n)((?:"{3}(?:(?!"{3})[\s\S])*"{3}|"[^\n]*")\n)?type (Query|Mutation) \{\n([\s\S]*?\n)\}\n\n?/g;
/** What a shared block defines: its types by name, its directives as `@name`. */
const DEFINED_RE = /^(?:(?:type|input|enum|interface|scalar|union) (\w+)|directive (@\w+))/gm;

/** The files of schema/shared/*.graphql (name and text), in name order. */
const sharedFiles = (repoRoot: string): { file: string; text: string }[] => {
  const dir = join(repoRoot, 'schema', 'shared');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') }));
};

/** The shared blocks of schema/shared/*.graphql by name. */
export function readSharedBlocks(repoRoot: string): Map<string, SharedBlock> {
  const blocks = new Map<string, SharedBlock>();
  for (const { file, text } of sharedFiles(repoRoot)) {
    for (const m of text.matchAll(SHARED_BLOCK_RE)) blocks.set(m[1]!, { file, body: m[2]! });
  }
  return blocks;
}

export interface Template {
  /** Where it is written: schema/shared/FILE or the part. */
  file: string;
  params: string[];
  body: string;
}

/** The templates written in `text` (of `file`) by name, and the text without them. */
export function readTemplates(text: string, file: string): { templates: Map<string, Template>; rest: string } {
  const templates = new Map<string, Template>();
  const rest = text.replace(TEMPLATE_RE, (_all, name: string, params: string | undefined, body: string) => {
    if (templates.has(name)) throw new Error(`${file}: template ${name} is written twice`);
    templates.set(name, {
      file,
      params:
        params
          ?.split(',')
          .map((p) => p.trim())
          .filter(Boolean) ?? [],
      body,
    });
    return '';
  });
  if (rest.includes('# >>> template:') || rest.includes('# <<< template:')) throw new Error(`${file}: a template marker without its pair`);
  return { templates, rest };
}

/** The templates of schema/shared/*.graphql by name. */
export function readSharedTemplates(repoRoot: string): Map<string, Template> {
  const all = new Map<string, Template>();
  for (const { file, text } of sharedFiles(repoRoot)) {
    for (const [name, t] of readTemplates(text, `schema/shared/${file}`).templates) {
      if (all.has(name)) throw new Error(`template ${name} is written in ${all.get(name)!.file} and schema/shared/${file}`);
      all.set(name, t);
    }
  }
  return all;
}

/**
 * `text` (of `file`) with every `# use:NAME(...)` line replaced by its template's body; a template may
 * use another. Each template used is added to `used`. Throws naming the file on an unknown template or
 * a missing or extra argument.
 */
export function expandTemplates(text: string, file: string, templates: ReadonlyMap<string, Template>, used: Set<string> = new Set()): string {
  const expand = (t: string, depth: number): string =>
    t.replace(USE_RE, (_all, indent: string, name: string, args: string | undefined) => {
      const template = templates.get(name);
      if (!template) throw new Error(`${file}: # use:${name} names no template (schema/shared/*.graphql, the subgraph's head or this part)`);
      if (depth > 8) throw new Error(`${file}: template ${name} uses itself`);
      used.add(name);
      const values = new Map<string, string>();
      for (const arg of args?.split(',').filter((a) => a.trim()) ?? []) {
        const m = /^\s*(\w+)\s*:\s*(.*?)\s*$/.exec(arg);
        if (!m || !template.params.includes(m[1]!) || values.has(m[1]!))
          throw new Error(`${file}: # use:${name}: '${arg.trim()}' is not one of its parameters (${template.params.join(', ')})`);
        values.set(m[1]!, m[2]!);
      }
      const missing = template.params.filter((p) => !values.has(p));
      if (missing.length) throw new Error(`${file}: # use:${name} lacks ${missing.join(', ')}`);
      const body = template.body.replace(/\$(\w+)/g, (all, p: string) => {
        if (!values.has(p)) throw new Error(`${template.file}: template ${name} writes ${all}, not one of its parameters`);
        return values.get(p)!;
      });
      return expand(body.replace(/^(?=.)/gm, indent), depth + 1);
    });
  return expand(text, 0);
}

/** The part files of a sliced subgraph, head first, relative to the repository root (none when it is not sliced). */
export function sdlParts(repoRoot: string, name: string): string[] {
  const src = join('services', name, 'src');
  const features = join(src, 'features');
  if (!existsSync(join(repoRoot, features))) return [];
  const parts = [join(src, 'shared', 'schema.graphql')];
  for (const feature of readdirSync(join(repoRoot, features), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    for (const f of readdirSync(join(repoRoot, features, feature))
      .filter((x) => x.endsWith('.graphql'))
      .sort())
      parts.push(join(features, feature, f));
  }
  return parts;
}

const mentions = (text: string, names: readonly string[]): boolean => names.some((n) => new RegExp(`${n.startsWith('@') ? '' : '\\b'}${n}\\b`).test(text));

/**
 * The generated SDL of subgraph `name`, or undefined when it has no features/ folder.
 * Throws naming the part when a part is missing or carries a shared block of its own.
 */
export function generateSubgraphSdl(
  repoRoot: string,
  name: string,
  shared: ReadonlyMap<string, SharedBlock>,
  templates: ReadonlyMap<string, Template> = readSharedTemplates(repoRoot),
): string | undefined {
  const parts = sdlParts(repoRoot, name);
  if (parts.length === 0) return undefined;
  const roots: Record<'Query' | 'Mutation', string[]> = { Query: [], Mutation: [] };
  const described: Partial<Record<'Query' | 'Mutation', string>> = {};
  const bodies: string[] = [];
  /** The templates every part may use: the shared ones, then the head's. */
  const subgraphTemplates = new Map(templates);
  const usedTemplates = new Set<string>();
  for (const part of parts) {
    const path = join(repoRoot, part);
    if (!existsSync(path)) throw new Error(`${part} is missing (the head of a sliced subgraph: federation link, directives, shared types)`);
    const written = readFileSync(path, 'utf8');
    if (written.includes('# >>> shared:')) throw new Error(`${part} carries a shared block: those are spliced in from schema/shared/, name the types instead`);
    const own = readTemplates(written, part);
    for (const n of own.templates.keys())
      if (subgraphTemplates.has(n)) throw new Error(`${part}: template ${n} is also written in ${subgraphTemplates.get(n)!.file}`);
    const usedHere = new Set<string>();
    // The head's templates serve every part of the subgraph; a feature part's serve that part.
    if (part === parts[0]) for (const [n, t] of own.templates) subgraphTemplates.set(n, t);
    const text = expandTemplates(own.rest, part, new Map([...subgraphTemplates, ...own.templates]), usedHere);
    usedHere.forEach((n) => usedTemplates.add(n));
    const unused = [...own.templates.keys()].filter((n) => part !== parts[0] && !usedHere.has(n));
    if (unused.length) throw new Error(`${part}: template ${unused.join(', ')} is written but not used`);
    const rest = text.replace(ROOT_TYPE_RE, (_all, description: string | undefined, type: 'Query' | 'Mutation', fields: string) => {
      if (description && described[type] !== undefined) throw new Error(`${part}: type ${type} is described in two parts; keep one description`);
      if (description) described[type] = description;
      roots[type].push(fields.replace(/\n+$/, '\n'));
      return '';
    });
    if (rest.trim()) bodies.push(`# ${part.split('\\').join('/')}\n${rest.trim()}\n`);
  }
  const unusedHead = [...subgraphTemplates.keys()].filter((n) => !templates.has(n) && !usedTemplates.has(n));
  if (unusedHead.length) throw new Error(`${parts[0]}: template ${unusedHead.join(', ')} is written but not used`);
  const rootText = (['Query', 'Mutation'] as const).filter((t) => roots[t].length).map((t) => `${described[t] ?? ''}type ${t} {\n${roots[t].join('\n')}}\n`);
  const [head, ...features] = bodies;
  let text = [head, ...rootText, ...features].join('\n');
  // Splice the shared blocks the text names, then those the spliced ones name, until none is added.
  const used = new Set<string>();
  for (let grew = true; grew;) {
    grew = false;
    const scope = text + [...used].map((n) => shared.get(n)!.body).join('');
    for (const [blockName, block] of shared) {
      if (used.has(blockName)) continue;
      const defined = [...block.body.matchAll(DEFINED_RE)].map((m) => (m[1] ?? m[2])!);
      if (mentions(scope, defined)) {
        used.add(blockName);
        grew = true;
      }
    }
  }
  const spliced = [...shared.keys()].filter((n) => used.has(n)).map((n) => `# >>> shared:${n}\n${shared.get(n)!.body}# <<< shared:${n}\n`);
  text = [text, ...spliced].join('\n');
  const header =
    `# Generated by \`npm run compose\` from services/${name}/src/shared/schema.graphql, services/${name}/src/features/*/*.graphql\n` +
    '# and the shared blocks of schema/shared/. Do not edit; `npm run compose:check` fails on drift.\n';
  return header + text;
}
