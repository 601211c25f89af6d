#!/usr/bin/env node
// `npm run package`: a production build (minified, dist/ rebuilt from empty), then the .vsix with
// vsce, then its size and files against a budget. Usage: node scripts/package.mjs [--out <file.vsix>]
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
/** The .vsix may grow to this before the package step fails: a bundle that doubles is a finding. */
const budgetBytes = 2.5 * 1024 * 1024;

const outIndex = process.argv.indexOf('--out');
const out = resolve(outIndex > 0 ? process.argv[outIndex + 1] : join(root, 'foreman.vsix'));

function run(argv) {
  const result = spawnSync(argv[0], argv.slice(1), { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`package: ${argv.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
    process.exit(1);
  }
}

run([process.execPath, join(root, 'scripts/build.mjs'), '--production']);
const vsce = require.resolve('@vscode/vsce/vsce');
run([process.execPath, vsce, 'package', '--no-dependencies', '--out', out]);
const { listFiles } = require('@vscode/vsce');
const files = await listFiles({ cwd: root, dependencies: false, packageManager: 'none' });
const bytes = statSync(out).size;
const report = {
  vsix: out,
  bytes,
  mib: Number((bytes / 1024 / 1024).toFixed(2)),
  files: files.length,
  budgetMib: budgetBytes / 1024 / 1024,
};
console.log(JSON.stringify(report));
if (bytes > budgetBytes) {
  console.error(
    `package: ${out} is ${report.mib} MiB, over its budget of ${report.budgetMib} MiB; find what grew (esbuild --metafile) before raising it.`,
  );
  process.exit(1);
}
