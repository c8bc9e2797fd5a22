// Type-aware lint rules that catch real defects: unhandled promises, promises where callbacks are
// expected, non-exhaustive switches.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.node/**', 'data/**', 'src/api/generated/**', 'coverage/**', 'test/fixtures/**', '.cache/**', 'clients/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The one way to run SQL is the Db handle (src/db/db.ts), from repositories: raw connections
    // stay inside the database layer, the core's database probe and the outbox (the writer of map_events).
    files: ['src/**/*.ts'],
    ignores: ['src/db/**', 'src/core/database.ts', 'src/events/outbox.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='getConnection']",
          message: 'Run SQL through the Db handle (src/db/db.ts) in a repository, not a raw connection.',
        },
        {
          selector: "CallExpression[callee.property.name='getKysely']",
          message: 'Use Db.kysely(), which carries its transaction.',
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', fetch: 'readonly', Buffer: 'readonly', performance: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly' } },
  },
);
