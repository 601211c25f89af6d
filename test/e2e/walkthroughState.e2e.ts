// The Get Started walkthrough ticks its steps from the workspace's state (issue 30), in a real
// VS Code (code-server + chromium): on a repository set up from the CLI before the window opened,
// with no button clicked, "Initialise", "Add a worker", "Pick an agent" and "Queue your first task"
// are ticked; "Review, approve, merge" ticks once the demo agent's work waits for review.
// Screenshots: test-results/walkthrough-state-*.png.
// Run: node --import tsx --test test/e2e/walkthroughState.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { ensureBuilt, makeTestRepo, type TestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

let scratch: string;
let repo: TestRepo;
let workbench: Workbench;
let taskId: string;

before(
  async () => {
    ensureBuilt();
    scratch = mkdtempSync(join(tmpdir(), 'foreman-walkthrough-state-'));
    repo = makeTestRepo(join(scratch, 'repo'), { 'README.md': '# Set up already\n' });
    repo.foreman('init');
    repo.foreman('worker', 'add', 'ada', '--agent', 'demo');
    // Manual: nobody works on it until the test assigns it, so the review step starts unticked.
    const added = repo.foreman('task', 'add', 'Add a changelog', '--manual', '--prompt', 'write CHANGELOG.md Nothing yet.\ncommit Add a changelog');
    taskId = /^task (\S+):/.exec(added)?.[1] ?? '';
    assert.ok(taskId, `no task id in: ${added}`);
    workbench = await launchWorkbench({ folder: repo.dir, extensionPath: repoRoot, name: 'walkthrough-state' });
  },
  { timeout: 180_000 },
);

after(async () => {
  await workbench?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('on a workspace set up from the CLI, the steps tick from its state: initialised, a worker, a task, a review', { timeout: 240_000 }, async () => {
  await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 90_000 });
  await workbench.runCommand('Welcome: Open Walkthrough...');
  await workbench.pickQuickItem('Get Started with Foreman');
  const steps = workbench.page.locator('.gettingStartedSlideDetails .getting-started-step');
  const ticked = (title: string) =>
    steps.filter({ has: workbench.page.locator('.step-title', { hasText: title }) }).locator('[role="checkbox"][aria-checked="true"]');
  for (const title of ['Initialise Foreman', 'Add a worker', 'Pick an agent', 'Queue your first task']) await ticked(title).waitFor();
  assert.equal(await ticked('Review, approve, merge').count(), 0, 'nothing was reviewed yet');
  await workbench.screenshot('set-up');
  // The demo agent works the task and waits for review: the last step ticks.
  repo.foreman('assign', 'ada', taskId);
  await ticked('Review, approve, merge').waitFor({ timeout: 120_000 });
  await workbench.screenshot('reviewed');
});
