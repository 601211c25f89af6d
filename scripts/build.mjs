#!/usr/bin/env node
// Bundles the extension host entry, the CLI (thin entry + full CLI) and the webview separately (STYLE: Tooling), and
// copies sql.js's wasm next to the bundles that load it.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const dist = join(root, 'dist');
// `--production` (the .vsix, scripts/package.mjs): minified bundles in a dist/ emptied first, so
// the package holds exactly what this build wrote. Source maps are still written, for a stack
// trace from a user to be read here; .vscodeignore keeps them out of the package.
const production = process.argv.includes('--production');
if (production) rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

/** The webview's zod: the same schemas, without every locale (scripts/webview-zod.mjs). */
const webviewZod = {
  name: 'webview-zod',
  setup(builder) {
    const shim = join(root, 'scripts/webview-zod.mjs');
    builder.onResolve({ filter: /^zod$/ }, (args) => (args.importer === shim ? undefined : { path: shim }));
  },
};

const common = {
  bundle: true,
  sourcemap: true,
  logLevel: 'warning',
  absWorkingDir: root,
  // keepNames: error and class names read the same in a user's report as in a development build.
  ...(production ? { minify: true, keepNames: true } : {}),
};
const entries = [
  // The CLI is two bundles: the thin entry sends routable commands to a running owner and loads
  // the full CLI (zod, sql.js, the engine) only when it has to (src/cli/thin.ts).
  { entryPoints: ['src/cli/thin.ts'], outfile: 'dist/cli.js', platform: 'node', target: 'node20', format: 'cjs' },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-local.js', platform: 'node', target: 'node20', format: 'cjs' },
  {
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
  },
  // The store's replica runs on a worker thread of whichever bundle opened the store (src/infra/db/replica.ts).
  { entryPoints: ['src/infra/db/replicaWorker.ts'], outfile: 'dist/store-replica.js', platform: 'node', target: 'node20', format: 'cjs' },
  // The synchronous PostgreSQL client's connection thread (src/infra/pg/syncClient.ts).
  { entryPoints: ['src/infra/pg/pgWorker.ts'], outfile: 'dist/foreman-pg.js', platform: 'node', target: 'node20', format: 'cjs' },
  { entryPoints: ['src/infra/agents/demoAgent.ts'], outfile: 'dist/demo-agent.js', platform: 'node', target: 'node20', format: 'cjs' },
  // Each agent's watchdog, which stops it and saves its work when its owner goes (src/infra/agents/ownerWatch.ts).
  {
    entryPoints: ['src/infra/agents/ownerWatchMain.ts'],
    outfile: 'dist/owner-watch.js',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
  },
  {
    entryPoints: ['webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    minify: true,
    plugins: [webviewZod],
  },
  { entryPoints: ['webview/dashboard.css'], outfile: 'dist/webview.css', target: 'chrome110' },
].filter((entry) => existsSync(join(root, entry.entryPoints[0])));

await Promise.all(entries.map((entry) => build({ ...common, ...entry })));
copyFileSync(require.resolve('sql.js/dist/sql-wasm.wasm'), join(dist, 'sql-wasm.wasm'));
