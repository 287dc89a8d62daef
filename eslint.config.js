import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // src/metadata.ts is written by `nest build` (the @nestjs/swagger plugin's metadata); console/api-types.d.ts by `npm run api-types`.
  { ignores: ['dist/', 'build/', 'node_modules/', 'coverage/', 'src/metadata.ts', 'console/api-types.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        Buffer: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        Intl: 'readonly',
        fetch: 'readonly',
      },
      // Type-aware rules: each TypeScript file is checked with the tsconfig that includes it (tsconfig.json: src, sim, test, bench, scripts).
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Nest's DI needs classes imported as values for decorator metadata, so type-only import rules stay off.
      '@typescript-eslint/consistent-type-imports': 'off',
      // A promise nobody awaits or handles fails silently (or crashes the process as an unhandled rejection).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['test/**/*.ts', 'sim/**/*.ts', 'bench/**/*.ts', 'src/**/*.spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // The admin console's scripts: ES modules run by the browser, not by Node.
    files: ['console/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        process: 'off',
        Buffer: 'off',
        setImmediate: 'off',
        window: 'readonly',
        document: 'readonly',
        sessionStorage: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        Intl: 'readonly',
        Node: 'readonly',
        HTMLElement: 'readonly',
        HTMLAnchorElement: 'readonly',
        HTMLButtonElement: 'readonly',
        HTMLFormElement: 'readonly',
        HTMLInputElement: 'readonly',
        HTMLSelectElement: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
  },
  {
    // Plain JavaScript (the console's browser modules, scripts/*.mjs, these config files) is in no tsconfig: no type-aware rules.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
