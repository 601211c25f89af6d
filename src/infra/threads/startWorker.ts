/**
 * Starts a worker thread from the bundle in dist/ (beside the bundle that runs this: the extension,
 * the CLI), or from its TypeScript source when the code runs from sources under tsx (tests, benches),
 * where a worker would not otherwise understand `.ts`.
 */
import * as fs from 'node:fs';
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startWorker(bundle: string, source: string, options: WorkerOptions): Worker {
  // A bundle does not inherit the parent's flags (tsx's loader, an inspector port).
  if (fs.existsSync(bundle)) return new Worker(bundle, { ...options, execArgv: [] });
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { ...options, eval: true });
}
