#!/usr/bin/env node
// Runs the Foreman in-host suite (test/vscode/foreman/index.ts) inside a real VS Code extension host:
// builds the extension, makes a fresh demo repository (scripts/demoRepo.mjs: ada, grace, a 3-task
// chain, a manual task) in a temporary folder, and hands everything to runInVsCode.mjs with workspace
// trust on, so the folder opens in Restricted Mode: the engine runs, no agent starts (deterministic).
//
// The demo's `.foreman/` is parked under another name until the suite itself puts it back, so the
// suite can prove activation is lazy and time `activate()` (VS Code would otherwise activate Foreman
// before any test runs). Startup activation by `workspaceContains` is covered by the UI test.
//
// Usage: node test/vscode/foreman/run.mjs [--no-build] [--keep]
// Last line: "in-vscode: N passed, N failed".
import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureDemoRepo } from '../../../scripts/demoRepo.mjs';
import { runInVsCode } from '../runInVsCode.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where the suite finds the demo's `.foreman/` to put back (see the header). */
export const parkedName = '.foreman-parked';

async function main() {
  const { values } = parseArgs({ options: { 'no-build': { type: 'boolean', default: false }, keep: { type: 'boolean', default: false } } });
  if (!values['no-build'] && spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' }).status !== 0) {
    console.log('in-vscode: 0 passed, 1 failed (build)');
    return 1;
  }
  // The workers' worktrees go next to the repository (<parent>/.foreman-worktrees): all inside `scratch`.
  const scratch = mkdtempSync(join(tmpdir(), 'foreman-inhost-'));
  let result = { code: 1, passed: 0, failed: 1 };
  try {
    const demo = ensureDemoRepo(root, join(scratch, 'demo-repo'));
    renameSync(join(demo, '.foreman'), join(demo, parkedName));
    result = await runInVsCode({
      suite: join(root, 'test/vscode/foreman'),
      extension: root,
      folder: demo,
      trust: true,
      env: { FOREMAN_TEST_DEMO_REPO: demo, FOREMAN_TEST_PARKED: parkedName },
    });
  } catch (error) {
    console.error(`in-vscode: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    const ok = result.code === 0 && result.failed === 0;
    if (ok && !values.keep) rmSync(scratch, { recursive: true, force: true });
    else console.error(`in-vscode: demo repository kept in ${scratch}`);
  }
  console.log(`in-vscode: ${result.passed} passed, ${result.failed} failed`);
  return result.code === 0 && result.failed === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
