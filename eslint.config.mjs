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
const sqlSelectors = [
  { selector: 'Literal[value=/^\\s*(select|insert|update|delete|with)\\s/i]', message: sqlMessage },
  { selector: 'TemplateElement[value.raw=/^\\s*(select|insert|update|delete|with)\\s/i]', message: sqlMessage },
];
// Every timer in src goes through the injected clock (src/base/clock.ts), so tests move it;
// the exceptions are processes that have no clock, each saying why in its file.
const timerMessage = 'Timers go through the injected clock (src/base/clock.ts: setTimeout, every, sleep), so a test can move them.';
const timerModules = ['timers', 'node:timers', 'timers/promises', 'node:timers/promises'].map((name) => ({ name, message: timerMessage }));
const rawTimerFiles = [
  'src/base/clock.ts',
  'src/infra/agents/demoAgent.ts',
  'src/infra/agents/ownerWatchMain.ts',
  'src/infra/endpoint/client.ts',
];
const restrict = (names, message, patterns = [], timers = true) => ({
  'no-restricted-imports': ['error', { paths: [...names.map((name) => ({ name, message })), ...(timers ? timerModules : [])], patterns }],
});
const infraMessage = 'Only src/extension imports vscode; only src/host composes (src/infra implements ports).';
const infraPatterns = ['**/extension/**', '**/host/**', '**/cli/**', ...engineInternals];

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
    files: ['src/base/**/*.ts'],
    rules: restrict(
      [...io, 'vscode'],
      'src/base is the floor under every layer: lifetimes, events, the clock, schedulers; it imports nothing of Foreman above it.',
      ['**/core/**', '**/engine/**', '**/infra/**', '**/host/**', '**/extension/**', '**/cli/**', '**/shared/**'],
    ),
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
    files: ['src/infra/**/*.ts', 'src/shared/**/*.ts'],
    rules: restrict(['vscode'], infraMessage, infraPatterns),
  },
  {
    // The dashboard runs in a browser: it shares only the view contract (src/shared) with the host.
    files: ['webview/**/*.ts'],
    rules: restrict(['vscode', ...io], 'webview/ renders what the host posts: it imports src/shared only (the view contract).', [
      '**/src/base/**',
      '**/src/core/**',
      '**/src/engine/**',
      '**/src/infra/**',
      '**/src/host/**',
      '**/src/cli/**',
      '**/src/extension/**',
    ]),
  },
  {
    files: rawTimerFiles.filter((file) => file.startsWith('src/infra/')),
    rules: restrict(['vscode'], infraMessage, infraPatterns, false),
  },
  {
    files: ['src/**/*.ts'],
    ignores: rawTimerFiles,
    rules: {
      'no-restricted-globals': ['error', { name: 'setTimeout', message: timerMessage }, { name: 'setInterval', message: timerMessage }],
    },
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
    files: ['src/engine/**/*.ts', 'src/host/**/*.ts'],
    ignores: ['src/engine/queries/**'],
    rules: { 'no-restricted-syntax': ['error', ...sqlSelectors] },
  },
  {
    // The same, and src/host as the only way into src/infra for `await import(…)` too.
    files: ['src/extension/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...sqlSelectors,
        {
          selector: 'ImportExpression[source.value=/\\/infra\\//]',
          message: 'src/host is the way into src/infra, for a dynamic import as well (src/host/gitParts.ts is one).',
        },
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
