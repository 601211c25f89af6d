// The Get Started walkthrough in a real VS Code (code-server + chromium), on a git repository
// without Foreman: it opens from "Welcome: Open Walkthrough…", lists the five first-run steps, and
// its first button initialises Foreman, which ticks the step.
// Screenshots: test-results/walkthrough-*.png.
// Run: node --import tsx --test test/e2e/walkthrough.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { ensureBuilt, makeTestRepo, type TestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

let scratch: string;
let repo: TestRepo;
let workbench: Workbench;

before(
  async () => {
    ensureBuilt();
    scratch = mkdtempSync(join(tmpdir(), 'foreman-walkthrough-'));
    repo = makeTestRepo(join(scratch, 'repo'), { 'README.md': '# First run\n' });
    workbench = await launchWorkbench({ folder: repo.dir, extensionPath: repoRoot, name: 'walkthrough' });
  },
  { timeout: 180_000 },
);

after(async () => {
  await workbench?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the Get Started walkthrough shows the first-run steps, and its first button initialises Foreman', { timeout: 150_000 }, async () => {
  const { page } = workbench;
  await workbench.runCommand('Welcome: Open Walkthrough...');
  await workbench.pickQuickItem('Get Started with Foreman');
  const walkthrough = page.locator('.gettingStartedSlideDetails');
  await walkthrough.getByText('Get Started with Foreman').first().waitFor();
  const titles = await walkthrough.locator('.getting-started-step .step-title').allInnerTexts();
  assert.deepEqual(
    titles.map((title) => title.trim()),
    ['Initialise Foreman', 'Add a worker', 'Pick an agent', 'Queue your first task', 'Review, approve, merge'],
  );
  // The step's media shows beside the steps once the editor is wide enough: hide the side bar.
  await workbench.runCommand('View: Toggle Primary Side Bar Visibility');
  // The media is media/walkthrough/initialise.md, rendered in a webview.
  const media = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await media.getByText('the state store').waitFor();
  await workbench.screenshot('steps');

  const firstStep = walkthrough.locator('.getting-started-step').first();
  await firstStep.getByRole('button', { name: 'Initialise Foreman' }).click();
  await firstStep.locator('[role="checkbox"][aria-checked="true"]').waitFor();
  // The step is ticked as the command starts; Foreman shows itself in the status bar once it is set up.
  await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 60_000 });
  assert.ok(existsSync(join(repo.dir, '.foreman')), 'the button did not initialise Foreman');
  await workbench.screenshot('initialised');
});
