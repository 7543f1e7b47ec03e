/**
 * The declarations every subgraph's resolvers.generated.ts would carry to the letter, kept once
 * (issue 36): graphql-codegen's typescript and typescript-resolvers plugins write the same prelude
 * into each file they generate (Maybe, InputMaybe, Omit, RequireFields, the built-in scalars, the
 * resolver function types, the federation reference helpers, the @policy directive's types).
 * codegen.ts hands the six outputs to hoistSharedTypes, which moves each declaration that is the
 * same text in two or more of them, is no type of the schemas, and names nothing of a single file,
 * into services/kit/src/generated/resolver-types.generated.ts; each generated file imports those it
 * declared and exports them again, so what it exports stays as it was.
 *
 * Scalars stays in each file (its descriptions are the subgraph's); the built-in scalars, written
 * alike in every file, come from the kit's BuiltinScalars. The schemas' types stay too: those of the
 * shared SDL blocks have their one source in schema/shared/ already.
 */
import ts from 'typescript';

/** Where the shared declarations are written, and how the generated files import them. */
export const SHARED_TYPES_FILE = 'services/kit/src/generated/resolver-types.generated.ts';
const SHARED_TYPES_IMPORT = '@pylon/kit/generated/resolver-types.generated';
/** What the shared declarations may import, by name, and from where the kit's file imports it. */
const IMPORTABLE: Record<string, { from: string; kitFrom: string }> = {
  GraphQLResolveInfo: { from: 'graphql', kitFrom: 'graphql' },
  GraphQLScalarType: { from: 'graphql', kitFrom: 'graphql' },
  GraphQLScalarTypeConfig: { from: 'graphql', kitFrom: 'graphql' },
  SubgraphContext: { from: '@pylon/kit', kitFrom: '../graphql/context.js' },
};
const BUILTIN_SCALARS = ['ID', 'String', 'Boolean', 'Int', 'Float'];

interface Declaration {
  name: string;
  text: string;
  /** Where the declaration itself starts in text (after its description). */
  code: number;
  exported: boolean;
  start: number;
  end: number;
  /** Identifiers the declaration names, its own type parameters aside. */
  names: Set<string>;
}

interface ParsedFile {
  source: ts.SourceFile;
  declarations: Map<string, Declaration>;
  /** Imported name -> module specifier. */
  imports: Map<string, string>;
  /** Where the last import ends. */
  importsEnd: number;
  /** The Scalars type's members by name (their text without descriptions). */
  scalars: Map<string, { text: string; start: number; end: number }>;
}

/** [start, end) widened to whole lines when only white space is beside it on them. */
function wholeLines(text: string, start: number, end: number): [number, number] {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const lineEnd = text.indexOf('\n', end);
  const after = lineEnd < 0 ? text.length : lineEnd + 1;
  return [text.slice(lineStart, start).trim() ? start : lineStart, text.slice(end, after).trim() ? end : after];
}

function namesIn(node: ts.Node): Set<string> {
  const names = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isIdentifier(n)) names.add(n.text);
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(node, visit);
  return names;
}

function parseFile(file: string, text: string): ParsedFile {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const declarations = new Map<string, Declaration>();
  const imports = new Map<string, string>();
  let importsEnd = 0;
  const scalars = new Map<string, { text: string; start: number; end: number }>();
  for (const s of source.statements) {
    if (ts.isImportDeclaration(s)) {
      importsEnd = s.end;
      const from = (s.moduleSpecifier as ts.StringLiteral).text;
      const bindings = s.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) imports.set(e.name.text, from);
      continue;
    }
    if (!ts.isTypeAliasDeclaration(s) && !ts.isInterfaceDeclaration(s)) continue;
    const start = s.getStart(source, true);
    const names = namesIn(s);
    names.delete(s.name.text);
    for (const p of s.typeParameters ?? []) names.delete(p.name.text);
    const exported = s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
    declarations.set(s.name.text, {
      name: s.name.text,
      text: text.slice(start, s.end),
      code: s.getStart(source, false) - start,
      exported,
      start,
      end: s.end,
      names,
    });
    if (s.name.text === 'Scalars' && ts.isTypeAliasDeclaration(s) && ts.isTypeLiteralNode(s.type)) {
      for (const m of s.type.members) {
        if (!m.name || !ts.isIdentifier(m.name)) continue;
        scalars.set(m.name.text, { text: text.slice(m.getStart(source, false), m.end), start: m.getStart(source, true), end: m.end });
      }
    }
  }
  return { source, declarations, imports, importsEnd, scalars };
}

/**
 * Moves the declarations the given generated files share to the letter, but for the types of the
 * schemas (`schemaTypes`, by name), into one kit file. Returns the rewritten files and the kit
 * file's text; `header` starts the kit file.
 */
export function hoistSharedTypes(
  files: ReadonlyMap<string, string>,
  header: string,
  schemaTypes: ReadonlySet<string>,
): { files: Map<string, string>; shared: string } {
  const parsed = new Map([...files].map(([file, text]) => [file, parseFile(file, text)] as const));
  const all = [...parsed.values()];

  // The built-in scalars, when every file writes them alike.
  const builtins = BUILTIN_SCALARS.filter((n) => new Set(all.map((p) => p.scalars.get(n)?.text)).size === 1 && all[0]!.scalars.has(n));
  if (builtins.length !== BUILTIN_SCALARS.length)
    throw new Error(
      `shared resolver types: the built-in scalars differ between the generated files (${BUILTIN_SCALARS.filter((n) => !builtins.includes(n)).join(', ')})`,
    );

  // Candidates: declared alike in two or more files.
  const texts = new Map<string, Set<string>>();
  const count = new Map<string, number>();
  for (const p of all) {
    for (const d of p.declarations.values()) {
      texts.set(d.name, (texts.get(d.name) ?? new Set()).add(d.text));
      count.set(d.name, (count.get(d.name) ?? 0) + 1);
    }
  }
  // A schema's own types stay beside the subgraph's other types (the shared SDL blocks are one source
  // already, schema/shared): what moves is what the plugins write around them.
  const hoisted = new Set(
    [...texts].filter(([name, t]) => t.size === 1 && count.get(name)! >= 2 && name !== 'Scalars' && !schemaTypes.has(name)).map(([name]) => name),
  );
  // A scalar a shared declaration reads must be written alike wherever it is declared.
  const scalarOk = (name: string) => new Set(all.filter((p) => p.scalars.has(name)).map((p) => p.scalars.get(name)!.text)).size === 1;
  // Keep only those that name nothing of a single file: other shared declarations, Scalars (alike
  // where read), what they may import, or globals.
  for (let changed = true; changed;) {
    changed = false;
    for (const name of hoisted) {
      const ok = all.every((p) => {
        const d = p.declarations.get(name);
        if (!d) return true;
        for (const n of d.names) {
          if (n === 'Scalars') continue;
          if (p.declarations.has(n) && !hoisted.has(n)) return false;
          const from = p.imports.get(n);
          if (from !== undefined && IMPORTABLE[n]?.from !== from) return false;
        }
        return [...d.text.matchAll(/\bScalars\['(\w+)'\]/g)].every((m) => scalarOk(m[1]!));
      });
      if (!ok) {
        hoisted.delete(name);
        changed = true;
      }
    }
  }

  // The kit file: the shared declarations in the order they first appear, each exported.
  const order: Declaration[] = [];
  for (const p of all) for (const d of p.declarations.values()) if (hoisted.has(d.name) && !order.some((o) => o.name === d.name)) order.push(d);
  const needed = new Set(order.flatMap((d) => [...d.names]));
  const kitImports = new Map<string, string[]>();
  for (const [name, { kitFrom }] of Object.entries(IMPORTABLE)) if (needed.has(name)) kitImports.set(kitFrom, [...(kitImports.get(kitFrom) ?? []), name]);
  const scalarsRead = [...new Set(order.flatMap((d) => [...d.text.matchAll(/\bScalars\['(\w+)'\]/g)].map((m) => m[1]!)))]
    .filter((n) => !builtins.includes(n))
    .sort();
  const scalarText = (n: string) => all.find((p) => p.scalars.has(n))!.scalars.get(n)!.text;
  const kit = [
    `${header}// The declarations services/*/src/shared/resolvers.generated.ts share to the letter, once (scripts/shared-resolver-types.ts).\n` +
      [...kitImports].map(([from, names]) => `import type { ${names.join(', ')} } from '${from}';\n`).join(''),
    `/** The built-in scalars, mapped as every subgraph maps them. */\nexport type BuiltinScalars = {\n${builtins.map((n) => `  ${scalarText(n)}\n`).join('')}};\n`,
    ...(/\bScalars\[/.test(order.map((d) => d.text).join(''))
      ? [
          `/** The scalars the declarations below read. */\ntype Scalars = BuiltinScalars${scalarsRead.length ? ` & {\n${scalarsRead.map((n) => `  ${scalarText(n)}\n`).join('')}}` : ''};\n`,
        ]
      : []),
    ...order.map((d) => `${d.exported ? d.text : `${d.text.slice(0, d.code)}export ${d.text.slice(d.code)}`}\n`),
  ].join('\n');

  const out = new Map<string, string>();
  for (const [file, p] of parsed) {
    const text = p.source.text;
    const mine = [...p.declarations.values()].filter((d) => hoisted.has(d.name));
    // Cut the shared declarations and the built-in scalars, last first so offsets hold.
    const cuts: [number, number, string][] = mine.map((d) => [...wholeLines(text, d.start, d.end), '']);
    const scalars = p.declarations.get('Scalars');
    if (scalars) {
      for (const n of builtins) {
        const m = p.scalars.get(n)!;
        cuts.push([...wholeLines(text, m.start, m.end), '']);
      }
      const at = text.indexOf('= {', scalars.start);
      cuts.push([at, at + 3, '= BuiltinScalars & {']);
    }
    let body = text;
    for (const [start, end, by] of cuts.sort((a, b) => b[0] - a[0])) body = body.slice(0, start) + by + body.slice(end);
    const rest = parseFile(file, body);
    const used = new Set([...rest.source.statements].filter((s) => !ts.isImportDeclaration(s)).flatMap((s) => [...namesIn(s)]));
    const imported = mine.filter((d) => d.exported || used.has(d.name)).map((d) => d.name);
    if (scalars) imported.unshift('BuiltinScalars');
    const exported = mine.filter((d) => d.exported).map((d) => d.name);
    const lines =
      `import type { ${imported.join(', ')} } from '${SHARED_TYPES_IMPORT}';\n` + (exported.length ? `export type { ${exported.join(', ')} };\n` : '') + '\n';
    body = body.slice(0, rest.importsEnd) + '\n' + lines + body.slice(rest.importsEnd).replace(/^\n/, '');
    out.set(file, body.replace(/\n{3,}/g, '\n\n').replace(/\n+$/, '\n'));
  }
  return { files: out, shared: kit };
}
