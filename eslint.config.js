import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import checkout from './.ci/untracked.cjs';

export default tseslint.config(
  // Files git neither tracks nor ignores (a scratch file): not the project's (see .ci/untracked.cjs).
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', ...checkout.untrackedFiles()] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain Node scripts run as child processes by the tests.
    files: ['**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', module: 'writable' } },
  },
  {
    // CommonJS files (.ci/untracked.cjs, read by the tool configs) load with require.
    files: ['**/*.cjs'],
    languageOptions: { globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // The SQLite binding differs by Node version (better-sqlite3 12 on Node 20, the Node-API
    // better-sqlite3-napi on 22 and 24, the one the .deb carries): only sqlite-driver.ts picks it.
    // A direct import works here on Node 20 and fails in the package (no such module there). In
    // tests, a second SQLite library in the process does not see the first one's locks (POSIX
    // locks are per process): a test that holds the journal busy through it holds nothing on 24.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    ignores: ['src/journal/sqlite-driver.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'better-sqlite3',
              message: 'import Database from src/journal/sqlite-driver.ts (the binding for this Node)',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
);
