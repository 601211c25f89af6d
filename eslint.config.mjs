// ESLint flat config: typescript-eslint type-checked rules plus the layering rule of STYLE.md —
// src/core is pure, src/engine depends on core and ports only, and only src/extension imports vscode.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const io = ['fs', 'node:fs', 'child_process', 'node:child_process', 'net', 'node:net', 'sql.js', 'simple-git', 'os', 'node:os'];
/** The engine's insides: only its front door (`Engine`) and its types are for other layers. */
const engineInternals = [
  '**/engine/transactor',
  '**/engine/crew*',
  '**/engine/agentRunner',
  '**/engine/handlers',
  '**/engine/queueWaker',
  '**/engine/stateService',
  '**/engine/taskEnds',
  '**/engine/dispatcher',
  '**/engine/engineBackground',
  '**/engine/engineServices',
  '**/engine/retention',
];
const sqlMessage = 'SQL belongs in src/engine/queries: call (or add) a typed query function there.';
const restrict = (names, message, patterns = []) => ({
  'no-restricted-imports': ['error', { paths: names.map((name) => ({ name, message })), patterns }],
});

export default tseslint.config(
  {
    ignores: [
      'test/fixtures/**',
      '.vscode-test/**',
      '.demo/**',
      'dist/**',
      'out/**',
      'node_modules/**',
      'test-results/**',
      '.vscode-test/**',
      '**/*.mjs',
      'bin/**',
      'media/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allowNullish: true }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: restrict([...io, 'vscode', 'node:crypto', 'crypto'], 'src/core is pure: no I/O, no vscode.', [
      '**/engine/**',
      '**/infra/**',
      '**/extension/**',
      '**/cli/**',
    ]),
  },
  {
    files: ['src/engine/**/*.ts'],
    rules: restrict([...io, 'vscode'], 'src/engine talks to the world through ports (src/engine/ports/).', [
      '**/infra/**',
      '**/extension/**',
      '**/cli/**',
    ]),
  },
  {
    files: ['src/infra/**/*.ts', 'src/shared/**/*.ts', 'webview/**/*.ts'],
    rules: restrict(['vscode'], 'Only src/extension imports vscode; only src/host composes (src/infra implements ports).', [
      '**/extension/**',
      '**/host/**',
      '**/cli/**',
      ...engineInternals,
    ]),
  },
  {
    files: ['src/host/**/*.ts'],
    rules: restrict(['vscode'], 'src/host composes engine, store, git and agents; it knows no UI and no engine internals.', [
      '**/extension/**',
      '**/cli/**',
      ...engineInternals,
    ]),
  },
  {
    files: ['src/extension/**/*.ts'],
    rules: restrict([], 'Requests go through Engine.execute; engine internals stay in src/engine; src/host is the way into src/infra.', [
      '**/infra/**',
      ...engineInternals,
    ]),
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: restrict(['vscode'], 'Only src/extension imports vscode; src/host is the way into src/infra.', [
      '**/extension/**',
      '**/infra/**',
      ...engineInternals,
    ]),
  },
  // SQL lives in src/engine/queries, one typed function per statement (STYLE: SQL in one place per table);
  // everything above the store calls those functions, so a second store only has to supply them.
  {
    files: ['src/engine/**/*.ts', 'src/host/**/*.ts', 'src/extension/**/*.ts', 'src/cli/**/*.ts'],
    ignores: ['src/engine/queries/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'Literal[value=/^\\s*(select|insert|update|delete|with)\\s/i]', message: sqlMessage },
        { selector: 'TemplateElement[value.raw=/^\\s*(select|insert|update|delete|with)\\s/i]', message: sqlMessage },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
);
