// Lint: typescript-eslint's strict rules over the sources, tests, benchmarks and scripts (`npm run lint`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'difftest-out/', 'fuzz-failures/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' },
    },
    rules: {
      // tsconfig has noUncheckedIndexedAccess: an element read by an index the code has just bounded
      // is typed `T | undefined`, and `!` is how the code tells the compiler what it knows there.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Terminal colour sequences (ESC, \x1b) and other control bytes are matched on purpose: input
      // pasted from a coloured terminal is cleaned, and output is measured without its colours.
      'no-control-regex': 'off',
      // `const { dropped: _dropped, ...rest } = x` leaves a member out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_' }],
    },
  },
  {
    // The scripts of bin/ are CommonJS (bin/package.json): node starts them without its loader of ES modules.
    files: ['bin/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
