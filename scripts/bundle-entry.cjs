// Part of `npm run build` (scripts/build.cjs): bundles the all-in-one's compiled entry and the
// workspace code it loads into launcher/dist/bundle/, so a start reads a few dozen files instead of
// 500 workspace modules through Node's ESM loader (on Node 20 each one an async read, a URL resolve
// and a link: ~0.6 s of a 2 s start, BENCHMARKS.md). launcher/dist/all-in-one.main.js then imports
// the bundle, so `npm start`, the image's `all-in-one` role and the tests from dist/ all run it.
//
// What stays as it is:
// - Third-party packages but those of INLINED are not bundled: each import points at the very file
//   Node resolves today (a path relative to the bundle, into node_modules/.pnpm), so every package
//   keeps one instance (graphql's realm checks) and its own files, and the image's --prod install
//   answers the same paths.
// - The dynamic imports (the stores, then the rest of the code) stay lazy: chunks loaded on demand.
// - `import.meta.url` in workspace code is the URL of the file it was compiled to, written as a
//   path relative to the bundle: the files a module reads beside itself (schema/, the browser
//   player, the docs pages, the start caches) are found where they are, wherever the tree is copied.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { isBuiltin } = require('node:module');
const esbuild = require('esbuild');

const ENTRY = 'launcher/dist/all-in-one.main.js';
const BUNDLE_DIR = 'launcher/dist/bundle';

/**
 * Packages bundled too: pure JavaScript, ESM for the most part (Node 20 loads each ESM file with an
 * async read), many files each (~550 of the 2,180 files a start opened), whose objects never cross
 * to a package left outside. Not zod: the MCP SDK (outside) reads the tools' zod schemas, so both
 * must see one zod. jose is also imported by the MCP SDK, which gets its own copy: no key or token
 * object passes between the two.
 */
const INLINED = new Set([
  'oidc-provider',
  'jose',
  'mingo',
  '@apollo/server',
  '@as-integrations/express5',
  '@graphql-tools/schema',
  '@graphql-tools/utils',
  '@graphql-tools/merge',
  // media type probing (file-type and the packages it reads with)
  'file-type',
  'strtok3',
  'token-types',
  '@tokenizer/inflate',
  '@tokenizer/token',
  'uint8array-extras',
  '@borewit/text-codec',
  // the legacy interface's XML, CSV import and export
  'fast-xml-parser',
  'fast-xml-builder',
  '@nodable/entities',
  'path-expression-matcher',
  'xml-naming',
  'anynum',
  'csv-parse',
  'csv-stringify',
  'is-unsafe',
]);

/** `@scope/name` or `name` of a bare import specifier. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** A path from the bundle's folder to `file`, as an import specifier. */
function fromBundle(root, file) {
  const rel = path.relative(path.join(root, BUNDLE_DIR), file).split(path.sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Bundles `ENTRY` (already compiled) into BUNDLE_DIR and points `ENTRY` at it. */
async function bundleAllInOne(root, condition) {
  const outdir = path.join(root, BUNDLE_DIR);
  fs.rmSync(outdir, { recursive: true, force: true });
  const thirdPartyAtItsPath = {
    name: 'third-party-at-its-path',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (isBuiltin(args.path)) return { external: true };
        if (args.path.startsWith('@pylon/') || args.pluginData === 'resolving') return undefined;
        if (INLINED.has(packageName(args.path))) return undefined;
        const r = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'resolving' });
        // An optional package that is not installed stays a bare import: it fails where it would have.
        if (r.errors.length > 0) return { path: args.path, external: true };
        return { path: fromBundle(root, r.path), external: true };
      });
    },
  };
  const ownUrl = {
    name: 'own-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, async (args) => {
        let contents = await fs.promises.readFile(args.path, 'utf8');
        if (contents.includes('import.meta.url')) {
          contents = contents.split('import.meta.url').join(`new URL(${JSON.stringify(fromBundle(root, args.path))}, import.meta.url).href`);
        }
        return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
  await esbuild.build({
    entryPoints: [path.join(root, ENTRY)],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    conditions: [condition],
    outdir,
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [thirdPartyAtItsPath, ownUrl],
  });
  fs.writeFileSync(path.join(root, ENTRY), `// The bundle of this entry (scripts/bundle-entry.cjs).\nimport './bundle/all-in-one.main.js';\n`);
  fs.rmSync(path.join(root, `${ENTRY}.map`), { force: true });
}

module.exports = { bundleAllInOne };
