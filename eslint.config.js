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
);
