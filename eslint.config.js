// ESLint (flat config), run by `npm test` as `eslint .`. Layering is dependency-cruiser's job
// (.dependency-cruiser.cjs) and formatting is Prettier's; this catches code-level mistakes.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Where `process.env` may be read (STYLE habit 2): config modules, composition roots, tests, tooling. */
const ENV_READERS = [
  '**/config.ts',
  '**/main.ts',
  '**/*.main.ts',
  'launcher/src/all-in-one.ts',
  'services/composition/src/**',
  '**/test/**',
  'bench/**',
  'scripts/**',
  '*.config.js',
];

/** Mongo-style operators of the documents port's filter and update language. */
const STORAGE_OPERATOR = '/^\\$(set|unset|inc|push|pull|in|nin|ne|eq|gt|gte|lt|lte|or|and|not|nor|exists|regex|elemMatch|all|size)$/';

const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'structuredClone'].map((g) => [g, 'readonly']),
);
const commonJsGlobals = { ...nodeGlobals, require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', __filename: 'readonly' };

export default defineConfig(
  { ignores: ['**/node_modules/', '**/*.generated.ts', 'console/src/gql/', '.tmp/', 'data/', 'coverage/', '**/dist/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its rejection: an unhandled error instead of a response.
      '@typescript-eslint/no-floating-promises': 'error',
      // `import type` for types keeps type-only edges out of the runtime graph (and out of cycles).
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read settings in a config module (config.ts) and pass them in (STYLE habit 2).' },
      ],
    },
  },
  { files: ENV_READERS, rules: { 'no-restricted-properties': 'off' } },
  // Sealed repositories (STYLE: "give the repository an intent-named method"): storage operators
  // ($set, $in, $or, ...) and collections (store.collection(...)) appear only in *.repository.ts, and in identity's oidc-provider storage
  // adapter, which is the repository of the OAuth server's own records.
  {
    files: ['services/{devices,content,scheduling,datatables,analytics,identity}/src/**/*.ts'],
    // A feature's tests (features/<feature>/test/) seed stores directly, as those in services/<name>/test/ do.
    ignores: ['**/*.repository.ts', 'services/identity/src/adapters/oidc.adapter.ts', '**/test/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `Property > :matches(Identifier.key[name=${STORAGE_OPERATOR}], Literal.key[value=${STORAGE_OPERATOR}])`,
          message: 'A storage operator outside a *.repository.ts: give the repository an intent-named method.',
        },
        {
          // store.collection(spec), documents.collection(spec), this.store.collection(spec): raw collections live in repositories.
          selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='collection']",
          message: 'store.collection(...) outside a *.repository.ts: open the collection in a repository and give it intent-named methods.',
        },
      ],
    },
  },
  // Tests read untyped JSON responses; `any` there is the honest type.
  { files: ['**/test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: commonJsGlobals }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  { files: ['**/*.js'], ignores: ['gateway/src/docs/browser/**', 'player-web/src/browser/**'], languageOptions: { globals: nodeGlobals } },
  // The web player (ES modules bundled by esbuild; sw.entry.js runs as its Service Worker) and /screens.
  {
    files: ['player-web/src/browser/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'localStorage',
          'fetch',
          'navigator',
          'location',
          'history',
          'performance',
          'indexedDB',
          'caches',
          'crypto',
          'self',
          'Request',
          'Response',
          'URL',
          'console',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'requestAnimationFrame',
          'AbortController',
        ].map((g) => [g, 'readonly']),
      ),
    },
    rules: { '@typescript-eslint/no-unused-vars': ['error', { caughtErrors: 'none' }] },
  },
  // Scripts the docs pages load in the browser (plain ES5 files, no bundler except graphiql.entry.js).
  {
    files: ['gateway/src/docs/browser/**/*.js'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', localStorage: 'readonly', fetch: 'readonly', SwaggerUIBundle: 'readonly' } },
    rules: { '@typescript-eslint/no-unused-vars': ['error', { caughtErrors: 'none' }] },
  },
);
