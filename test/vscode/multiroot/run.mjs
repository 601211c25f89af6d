#!/usr/bin/env node
// Runs the multi-root suite (test/vscode/multiroot/index.ts) inside a real VS Code extension host: a
// `.code-workspace` with three git repositories, two with Foreman initialised (alpha: worker a1;
// beta: workers b1, b2) and one without (gamma). Trusted, no tasks, so no agent starts.
// Usage: node test/vscode/multiroot/run.mjs [--no-build] [--keep]
// Last line: "in-vscode: N passed, N failed".
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runInVsCode } from '../runInVsCode.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** A git repository with one commit; with `workers`, Foreman initialised and those workers added. */
function makeRepo(dir, workers) {
  mkdirSync(dir, { recursive: true });
  const git = (...args) => execFileSync('git', ['-C', dir, ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), `# ${dir}\n`);
  git('add', '-A');
  git('-c', 'user.name=Multi Root', '-c', 'user.email=multiroot@foreman.invalid', 'commit', '-q', '-m', 'start');
  if (!workers) return;
  const cli = (...args) => execFileSync(process.execPath, [join(root, 'dist/cli.js'), ...args, '--dir', dir], { stdio: 'pipe' });
  cli('init');
  for (const id of workers) cli('worker', 'add', id);
}

async function main() {
  const { values } = parseArgs({ options: { 'no-build': { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } } });
  if (!values['no-build'] && spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' }).status !== 0) {
    console.log('in-vscode: 0 passed, 1 failed (build)');
    return 1;
  }
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-multiroot-')));
  let result = { code: 1, passed: 0, failed: 1 };
  try {
    makeRepo(join(scratch, 'alpha'), ['a1']);
    makeRepo(join(scratch, 'beta'), ['b1', 'b2']);
    makeRepo(join(scratch, 'gamma'));
    const workspaceFile = join(scratch, 'crew.code-workspace');
    writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: 'alpha' }, { path: 'beta' }, { path: 'gamma' }] }, null, 2));
    result = await runInVsCode({
      suite: join(root, 'test/vscode/multiroot'),
      extension: root,
      folder: workspaceFile,
      env: { FOREMAN_TEST_SCRATCH: scratch },
    });
  } catch (error) {
    console.error(`in-vscode: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    const ok = result.code === 0 && result.failed === 0;
    if (ok && !values.keep) rmSync(scratch, { recursive: true, force: true });
    else console.error(`in-vscode: multi-root workspace kept in ${scratch}`);
  }
  console.log(`in-vscode: ${result.passed} passed, ${result.failed} failed`);
  return result.code === 0 && result.failed === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
