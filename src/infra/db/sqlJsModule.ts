/**
 * Loads the sql.js wasm module once per process. The esbuild bundle in dist/ has the wasm copied
 * next to it; from sources (tests, tsx) it comes from node_modules.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';

let modulePromise: Promise<SqlJsStatic> | undefined;

// A variable, not a literal: esbuild would otherwise warn that it cannot bundle the resolution.
const wasmModule = 'sql.js/dist/sql-wasm.wasm';

function wasmPath(): string {
  const bundled = path.join(__dirname, 'sql-wasm.wasm');
  return fs.existsSync(bundled) ? bundled : require.resolve(wasmModule);
}

export function loadSqlJs(): Promise<SqlJsStatic> {
  if (!modulePromise) {
    const wasm = wasmPath();
    modulePromise = initSqlJs({ locateFile: () => wasm });
    // A failed load (missing wasm) should be retried by the next caller, not cached forever.
    modulePromise.catch(() => {
      modulePromise = undefined;
    });
  }
  return modulePromise;
}
