/**
 * Layering rules (STYLE.md habit 9), checked by `depcruise` in `npm test` (scripts/test-all.cjs):
 *   depcruise --config .dependency-cruiser.cjs services gateway player-web launcher rest-facade legacy-adapter bench scripts client mcp
 * Paths are the resolved files (pnpm symlinks followed), so `@pylon/adapters/lmdb` and
 * `../lmdb/index.js` are the same `services/adapters/src/lmdb/index.ts`.
 * "No process.env outside config and composition roots" is an ESLint rule (eslint.config.js):
 * it is a property access, not an import.
 */
'use strict';

const TEST = '(^|/)test/';
/** Composition roots: the only product code that picks adapters. */
const ROOTS = ['(^|/)(main|[\\w-]+\\.main)\\.ts$', '^launcher/src/all-in-one\\.ts$', '^services/composition/src/', '^bench/'];
/** Every adapter, embedded (lmdb, memory, local) and driver-backed alike: @pylon/adapters. */
const ADAPTERS = '^services/adapters/src/';
const nodeModule = (names) => `(^|/)node_modules/(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})/`;
/** Engines and drivers, owned by @pylon/adapters: the embedded ones (LMDB, mingo, chDB) and those of the scaled backends. */
const DRIVERS = nodeModule(['lmdb', 'mingo', 'mongoose', 'mongodb', 'chdb', '@clickhouse/client', 'kafkajs', 'ioredis', '@aws-sdk/client-s3']);
const SERVICES = '^services/(devices|content|scheduling|datatables|analytics|identity)/';
/** A package whose sources (`from`) import none of the workspace's `folders`; `comment` says why. */
const leaf = (name, comment, from, folders) => ({ name, severity: 'error', comment, from: { path: from }, to: { path: `^(${folders.join('|')})/` } });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make load order matter and hide a missing seam: extract the shared piece or pass it in.',
      from: {},
      // Runtime cycles fail. A cycle with an `import type` hop is erased at compile time and cannot
      // change load order; those are reported (next rule) without failing.
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-circular-types',
      severity: 'warn',
      comment:
        'A cycle held together by `import type` (e.g. generated resolver types importing their mapper types from the resolvers that use them). Harmless at runtime, but still two modules that cannot be read apart.',
      from: {},
      to: { circular: true, via: { dependencyTypes: ['type-only'] } },
    },
    {
      name: 'drivers-in-adapters-package',
      severity: 'error',
      comment: 'Engines and network drivers (lmdb and mingo included) are imported only by @pylon/adapters (services/adapters/src), one entry per backend.',
      from: { pathNot: [ADAPTERS, TEST] },
      to: { path: DRIVERS },
    },
    {
      name: 'kit-sees-no-adapter',
      severity: 'error',
      comment:
        'The kit holds the ports; the adapters implement them and import the kit, never the reverse (kit tests that need a real adapter live in services/adapters/test/kit/).',
      from: { path: '^services/kit/' },
      to: { path: ADAPTERS },
    },
    {
      name: 'adapters-from-composition-roots',
      severity: 'error',
      comment: 'Adapters are chosen only in composition roots (main.ts, all-in-one.ts, services/composition, bench); everything else sees the ports.',
      from: { pathNot: [...ROOTS, TEST, ADAPTERS] },
      to: { path: ADAPTERS },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'domain/ imports no adapters, drivers, GraphQL, HTTP framework, features or shared modules (repositories, resolvers).',
      from: { path: '/src/domain/' },
      to: {
        path: [ADAPTERS, DRIVERS, '/src/(features|shared)/', nodeModule(['graphql', 'express'])],
      },
    },
    {
      name: 'facades-never-import-services',
      severity: 'error',
      comment: 'The REST facades talk to the gateway through persisted operations only: no subgraph service, no gateway code.',
      from: { path: '^(rest-facade|legacy-adapter)/', pathNot: TEST },
      to: { path: [SERVICES, '^gateway/'] },
    },
    {
      name: 'gateway-sees-public-entries-only',
      severity: 'error',
      comment:
        "The gateway package is the gateway only: it may use a subgraph's public entry (src/index.ts), never its internals, and nothing of the launcher or the facades (the all-in-one wires those, in launcher/).",
      from: { path: '^gateway/src/' },
      to: { path: [`${SERVICES}src/`, '^(launcher|rest-facade|legacy-adapter)/'], pathNot: `${SERVICES}src/index\\.ts$` },
    },
    leaf(
      'player-web-is-a-leaf',
      "The browser player (@pylon/player-web) is browser sources and their bundle: it imports nothing of the workspace (the gateway serves it, issue 38's console sits beside it).",
      '^player-web/src/',
      ['services', 'gateway', 'launcher', 'rest-facade', 'legacy-adapter', 'bench'],
    ),
    {
      name: 'http-in-http',
      severity: 'error',
      comment:
        'A subgraph\'s HTTP routes live in a feature\'s http/ (docs/development.md "Inside a subgraph"); besides them only its main.ts entries serve HTTP.',
      from: {
        path: `${SERVICES}src/`,
        pathNot: [`${SERVICES}src/features/[\\w-]+/(http|test)/`, `${SERVICES}src/main\\.ts$`, `${SERVICES}src/[\\w-]+\\.main\\.ts$`],
      },
      to: { path: nodeModule(['express', '@as-integrations/express5']) },
    },
    leaf(
      'client-is-a-leaf',
      "@pylon/client (client/) speaks Pylon's public HTTP APIs only, as any outside program would: it imports nothing of the workspace, so it can be published and its types come from the committed schema files alone.",
      '^client/src/',
      ['services', 'gateway', 'launcher', 'rest-facade', 'legacy-adapter', 'player-web', 'bench', 'mcp', 'scripts'],
    ),
    leaf(
      'mcp-over-the-client',
      "The MCP server (mcp/) acts only through @pylon/client with the caller's credentials, so policies, tenancy, limits and audit apply to agents exactly as to people: no subgraph, no kit, no gateway code.",
      '^mcp/src/',
      ['services', 'gateway', 'launcher', 'rest-facade', 'legacy-adapter', 'player-web', 'bench'],
    ),
    {
      name: 'mcp-mounted-by-roots',
      severity: 'error',
      comment:
        'The MCP server is wired by a composition root (the launcher, the distributed gateway process) and used by tests; product packages do not import it.',
      from: { pathNot: ['^launcher/', '^mcp/', '^gateway/src/gateway\\.main\\.ts$', TEST] },
      to: { path: '^mcp/' },
    },
    {
      name: 'launcher-is-the-top',
      severity: 'error',
      comment: 'launcher/ starts processes and wires packages together; no package imports it (tests, benchmarks and scripts may).',
      from: { pathNot: ['^launcher/', TEST, '^bench/', '^scripts/'] },
      to: { path: '^launcher/' },
    },
    {
      name: 'testing-only-from-tests',
      severity: 'error',
      comment: '`@pylon/kit/testing` is test support: tests and benchmarks only.',
      from: { pathNot: [TEST, '^bench/'] },
      to: { path: '^services/kit/src/testing\\.ts$' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves nowhere (a typo, or a dependency the package does not declare).',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Packages are leaves (not followed) but stay in the graph: excluding node_modules would drop
    // every edge into a package, and the rules about drivers and express would never fire.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)\\.tmp/', '(^|/)dist/', '\\.d\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'],
      // Types-only packages (@graphql-typed-document-node/core) name their entry in `typings` alone.
      mainFields: ['main', 'types', 'typings'],
    },
    // `import type` edges are kept (and marked type-only): they count for layering.
    moduleSystems: ['es6', 'cjs'],
    cache: false,
  },
};
