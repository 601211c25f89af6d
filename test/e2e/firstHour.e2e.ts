// The first hour's rough edges (issue 30 item 5), in a real VS Code (code-server + chromium):
// "Add Worker" refuses a duplicate id in its input box, and again after the agent picker when the
// id was taken meanwhile, before anything is sent; a chain made from a checklist says so in a toast.
// Workspace trust is on (Restricted Mode): no agent starts, so the state moves only when a step moves it.
// Screenshots: test-results/first-hour-*.png.
// Run: node --import tsx --test test/e2e/firstHour.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { ensureBuilt, makeTestRepo, type TestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

const WORKERS = 'Workers';
const QUEUE = 'Queue & Chains';
let scratch: string;
let repo: TestRepo;
let workbench: Workbench;

before(
  async () => {
    ensureBuilt();
    scratch = mkdtempSync(join(tmpdir(), 'foreman-first-hour-'));
    repo = makeTestRepo(join(scratch, 'repo'), {
      'README.md': '# First hour\n',
      'plans/release.md': '# Release\n\n- Write the changelog\n- Tag the release\n',
    });
    repo.foreman('init');
    repo.foreman('worker', 'add', 'ada', '--agent', 'demo');
    workbench = await launchWorkbench({ folder: repo.dir, extensionPath: repoRoot, workspaceTrust: true, name: 'first-hour' });
    await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 90_000 });
    await workbench.clickActivityBar('Foreman');
    await workbench.treeRow(WORKERS, 'ada').waitFor({ timeout: 60_000 });
  },
  { timeout: 240_000 },
);

after(async () => {
  await workbench?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('"Add Worker" refuses an id already taken, in the box and after the agent picker, before sending', { timeout: 120_000 }, async () => {
  await workbench.runCommand('Foreman: Add Worker');
  const box = workbench.quickInput();
  const input = box.locator('input[type="text"]');
  await box.getByText('Worker id: lowercase letters, digits and dashes').waitFor();
  await input.fill('ada');
  await box.getByText("A worker named 'ada' already exists in repo; choose another id.").waitFor();
  await workbench.screenshot('duplicate-id');
  // Enter does not take a refused id: the box stays, and the agent picker does not open.
  await input.press('Enter');
  assert.equal(await box.getByText("A worker named 'ada' already exists").isVisible(), true);
  assert.equal(await box.getByText('Agent for ada').count(), 0, 'the agent picker opened for a taken id');

  // A free id goes on to the picker; the CLI takes it meanwhile, and the window hears of it.
  await input.fill('bea');
  await input.press('Enter');
  await box.getByText('Agent for bea').waitFor();
  repo.foreman('worker', 'add', 'bea', '--agent', 'demo');
  await workbench.treeRow(WORKERS, 'bea').waitFor();
  await workbench.pickQuickItem(/^demo/);
  const refused = workbench.notifications().filter({ hasText: "A worker named 'bea' already exists in repo; choose another id. Nothing was added" });
  await refused.first().waitFor();
  await workbench.screenshot('duplicate-after-picker');
  // Nothing was sent: the engine's own refusal ("exists") never showed.
  assert.equal(await workbench.notifications().filter({ hasText: /Foreman: .*'bea'.*(exists|taken)/ }).count(), 1);
});

test('a chain made from a checklist is confirmed by a toast that can show the queue', { timeout: 120_000 }, async () => {
  await workbench.runCommand('Go to File...');
  await workbench.quickInput().locator('input[type="text"]').fill('plans/release.md');
  await workbench.pickQuickItem('release.md');
  await workbench.page.locator('.tabs-container .tab', { hasText: 'release.md' }).waitFor();
  await workbench.runCommand('Foreman: New Chain from Checklist');
  const box = workbench.quickInput();
  await box.getByText('Chain name').waitFor();
  await box.locator('input[type="text"]').press('Enter');
  const toast = workbench.notifications().filter({ hasText: 'Foreman: chain "Release" queued: 2 tasks, each after the one before.' });
  await toast.first().waitFor();
  await workbench.screenshot('chain-toast');
  await toast.first().getByRole('button', { name: 'Show Queue' }).click();
  await workbench.treeRow(QUEUE, 'Release').waitFor();
});
