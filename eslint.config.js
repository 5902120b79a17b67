import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Side effects belong at the edges (conventions §3): only src/cli/ may touch the process.
      'no-restricted-properties': ['error',
        { object: 'Math', property: 'random', message: 'Take a seeded rng (simulator/rng) instead.' }],
    },
  },
  {
    // Imports point down (docs/ARCHITECTURE.md): only the CLI reaches the composition roots, and
    // no module below them imports the CLI.
    files: ['src/**/*.ts', 'actors/**/*.ts', 'simulator/**/*.ts'],
    ignores: ['src/cli/**', 'src/runtime/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/cli/*', '**/runtime/*'], message: 'Only src/cli/ imports src/runtime/ (docs/ARCHITECTURE.md).' }] }],
    },
  },
  {
    files: ['src/runtime/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/cli/*'], message: 'src/runtime/ is below src/cli/ (docs/ARCHITECTURE.md).' }] }],
    },
  },
  {
    files: ['bin/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // The venue view's page: plain ES modules run by the browser (web/venue-view).
    files: ['web/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(['window', 'document', 'location', 'history', 'localStorage', 'fetch', 'WebSocket', 'URLSearchParams',
        'performance', 'requestAnimationFrame', 'cancelAnimationFrame', 'setTimeout', 'setInterval', 'clearInterval', 'atob'].map((g) => [g, 'readonly'])),
    },
  },
  {
    // Tests read JSON answers whose shape the assertions check; `any` there is the honest type.
    files: ['bin/**', 'bench/**', 'test/**', '**/*.test.ts'],
    rules: { 'no-restricted-properties': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
