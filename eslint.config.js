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
  'gateway/src/all-in-one.ts',
  'services/kit/src/composition/**',
  '**/test/**',
  'bench/**',
  'scripts/**',
  '*.config.js',
];

const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'structuredClone'].map((g) => [g, 'readonly']),
);
const commonJsGlobals = { ...nodeGlobals, require: 'readonly', module: 'writable', exports: 'writable', __dirname: 'readonly', __filename: 'readonly' };

export default defineConfig(
  { ignores: ['**/node_modules/', '**/*.generated.ts', '.tmp/', 'data/', 'coverage/', 'dist/'] },
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
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read settings in a config module (config.ts) and pass them in (STYLE habit 2).' }],
    },
  },
  { files: ENV_READERS, rules: { 'no-restricted-properties': 'off' } },
  // Tests read untyped JSON responses; `any` there is the honest type.
  { files: ['**/test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: commonJsGlobals }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  { files: ['**/*.js'], languageOptions: { globals: nodeGlobals } },
);
