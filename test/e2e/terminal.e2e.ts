// UI test: an agent profile with `mode: "terminal"` runs in VS Code's integrated terminal. The
// profile (from the workspace's `foreman.agents` setting) runs the demo agent; the dispatcher hands the
// task to the worker as the trusted window opens; a terminal named after the worker, task and
// attempt appears; the agent commits in the worker's worktree and exits 0; VS Code closes the
// terminal and reports the code; Foreman submits, and the worker shows IN_REVIEW.
// Screenshots: test-results/terminal-*.png.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { ensureBuilt, makeTestRepo, type TestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

let scratch: string;
let repo: TestRepo;
let workbench: Workbench;
const cli = (...args: string[]): string => repo.foreman(...args);
const git = (...args: string[]): string => repo.git(...args);

before(
  async () => {
    ensureBuilt();
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-terminal-e2e-')));
    // The profile lives in the workspace settings, as a team would share it. (`foreman.agents` is
    // machine-overridable: in a remote window such as code-server's, VS Code does not apply a
    // user-level value of it reliably; the workspace value is applied in a trusted workspace.)
    const profile = {
      command: process.execPath,
      args: [join(repoRoot, 'dist/demo-agent.js'), '{promptFile}'],
      prompt: 'file',
      mode: 'terminal',
    };
    repo = makeTestRepo(join(scratch, 'notes'), {
      'README.md': '# Notes\n',
      '.vscode/settings.json': JSON.stringify({ 'foreman.agents': { 'demo-terminal': profile } }, null, 2),
    });
    cli('init');
    cli('worker', 'add', 'tess', '--agent', 'demo-terminal');
    cli(
      'task',
      'add',
      'Take notes',
      '--id',
      'notes',
      '--prompt',
      'write notes.txt from the terminal\nprogress 0.5\nsleep 8000\ncommit Notes from the terminal',
    );
    workbench = await launchWorkbench({
      folder: repo.dir,
      extensionPath: repoRoot,
      name: 'terminal',
    });
    await workbench.page.setViewportSize({ width: 1400, height: 900 });
  },
  { timeout: 180_000 },
);

after(async () => {
  await workbench?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('a terminal-mode agent runs in an integrated terminal and its exit 0 submits the work', { timeout: 120_000 }, async () => {
  await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 60_000 });
  await workbench.clickActivityBar('Foreman');
  const row = workbench.treeRow('Workers', 'tess');
  // The terminal is named after the run and shown (without focus) in the panel.
  await workbench.page
    .locator('.part.panel')
    .getByText(/Foreman agent: tess · notes \(attempt 1\)/)
    .first()
    .waitFor({ timeout: 30_000 });
  await row.locator('.label-description', { hasText: /^WORKING · Take notes/ }).waitFor({ timeout: 10_000 });
  await workbench.screenshot('running');

  await row.locator('.label-description', { hasText: /^IN_REVIEW · Take notes/ }).waitFor({ timeout: 30_000 });
  assert.equal(git('show', 'tess/notes:notes.txt'), 'from the terminal');
  assert.equal(git('log', '-1', '--format=%s', 'tess/notes'), 'Notes from the terminal');
  const log = readFileSync(join(repo.dir, '.foreman', 'logs', 'notes', 'attempt-1.log'), 'utf8');
  assert.match(log, /runs in the terminal "Foreman agent: tess · notes \(attempt 1\)"/);
  assert.match(log, /exited 0/);
  await workbench.screenshot('review');
});
