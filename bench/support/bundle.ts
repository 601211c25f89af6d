/**
 * A bench's child bundled by esbuild with scripts/build.mjs's options, so that it runs the code an
 * owner or a client runs (dist/'s), not the sources under tsx. Under tsx every imported function is
 * reached through a getter and every function is named as it is made (`__name`): in the engine's
 * claim that was 0.1–0.25 of its ratio to raw sql.js, a cost no user pays.
 *
 * The bundle goes to node_modules/.cache/foreman-bench/, so that the packages left out of it (native
 * ones: better-sqlite3) resolve from the project's node_modules, with sql.js's wasm beside it as in
 * dist/. esbuild is loaded only here: the bundles themselves never need it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');
const cacheDir = path.join(root, 'node_modules', '.cache', 'foreman-bench');
// A variable, not a literal: esbuild would otherwise warn that it cannot bundle the resolution.
const wasmModule = 'sql.js/dist/sql-wasm.wasm';

/** Bundles `entry` (a bench child's .ts) and returns the script to run with plain `node`. */
export async function bundleChild(entry: string): Promise<string> {
  const { buildSync } = await import('esbuild');
  fs.mkdirSync(cacheDir, { recursive: true });
  const script = path.join(cacheDir, `${path.basename(entry, '.ts')}.js`);
  buildSync({
    entryPoints: [entry],
    bundle: true,
    outfile: script,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
    external: ['esbuild', 'better-sqlite3'],
  });
  fs.copyFileSync(require.resolve(wasmModule), path.join(cacheDir, 'sql-wasm.wasm'));
  return script;
}
