// New Task in a real VS Code (code-server + chromium): a title, then a markdown editor for a prompt
// of several lines, "Queue Task" in its title bar, where it goes, and an optional id. The demo agent
// carries out the prompt line by line, so the file on the worker's branch proves that every line
// arrived. From the Queue view, "New Task After This…" on a task queues one that waits for it.
// Screenshots: test-results/newtask-*.png.
// Run: node --import tsx --test test/e2e/newTask.e2e.ts   (after node scripts/vscode/provision.mjs)
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

interface StatusJson {
  tasks: Array<{ id: string; title: string; blockedBy: string | null }>;
}

before(
  async () => {
    ensureBuilt();
    scratch = mkdtempSync(join(tmpdir(), 'foreman-newtask-'));
    repo = makeTestRepo(join(scratch, 'repo'), { 'README.md': '# New task\n' });
    repo.foreman('init');
    repo.foreman('worker', 'add', 'ada', '--agent', 'demo');
    // A task only a person hands out: it stays put, so the new tasks can be placed after it.
    repo.foreman('task', 'add', 'Plan the work', '--id', 'plan', '--manual');
    workbench = await launchWorkbench({ folder: repo.dir, extensionPath: repoRoot, name: 'newtask' });
    await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 90_000 });
    await workbench.clickActivityBar('Foreman');
    await workbench.treeRow(QUEUE, 'Plan the work').waitFor();
  },
  { timeout: 180_000 },
);

after(async () => {
  await workbench?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Answers the title box, waits for the draft editor, and types the prompt into it. */
async function writeDraft(title: string, promptLines: string[]): Promise<void> {
  const { page } = workbench;
  const box = workbench.quickInput();
  await box.getByText('Title of the task').waitFor();
  await box.locator('input[type="text"]').fill(title);
  await box.locator('input[type="text"]').press('Enter');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.view-lines', { hasText: `# ${title}` }).waitFor();
  // The status bar shows where the cursor is once the editor has it: below the title and the hint.
  await page.locator('.statusbar-item', { hasText: /^Ln 3, Col 1$/ }).waitFor();
  // The cursor waits below the title; type as a person would, one line after another.
  await page.keyboard.type(promptLines.join('\n'));
  await editor.locator('.view-lines', { hasText: promptLines.at(-1)! }).waitFor();
}

async function clickQueueTask(): Promise<void> {
  await workbench.page.locator('.editor-actions .action-label[aria-label="Queue Task from This Editor"]').click();
}

test(
  'New Task from the palette: a multi-line prompt in an editor, the end of the queue, an id of our choosing',
  { timeout: 180_000 },
  async () => {
    await workbench.runCommand('Foreman: New Task');
    await writeDraft('Write the notes', [
      'write notes.md first line of the notes',
      'append notes.md second line of the notes',
      'commit Add notes',
    ]);
    await workbench.screenshot('draft');
    await clickQueueTask();
    await workbench.quickInput().getByText('where does the task go?').waitFor();
    await workbench.pickQuickItem('At the end of the queue');
    const idBox = workbench.quickInput();
    await idBox.getByText('task id (optional)').waitFor();
    await idBox.locator('input[type="text"]').fill('write-notes');
    await idBox.locator('input[type="text"]').press('Enter');

    // The draft is closed once queued, without asking to save it.
    await workbench.page.locator('.tabs-container .tab').first().waitFor({ state: 'detached' });
    const row = workbench.treeRow(WORKERS, 'ada');
    await row.locator('.label-description', { hasText: /^IN_REVIEW · Write the notes/ }).waitFor({ timeout: 120_000 });
    assert.equal(repo.git('show', 'ada/write-notes:notes.md'), 'first line of the notes\nsecond line of the notes');
    await workbench.screenshot('queued-and-done');
  },
);

test('New Task After This… on a task in the Queue view queues one that waits for it', { timeout: 120_000 }, async () => {
  const { page } = workbench;
  // A tree refresh (the first task's review landing) closes an open context menu: open it again until the click lands.
  const titleBox = workbench.quickInput().getByText('New Task after "Plan the work"');
  for (let round = 1; ; round++) {
    await workbench.treeRow(QUEUE, 'Plan the work').click({ button: 'right' });
    // Chosen with the keyboard: VS Code's context menu ignores a click that comes too soon after it
    // opened (so that the right-click's own release selects nothing), which a fast click can be.
    const item = page.getByRole('menuitem', { name: /New Task After This/ });
    await item.hover();
    await page.keyboard.press('Enter');
    const shown = await titleBox.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (shown) break;
    assert.ok(round < 4, 'New Task After This… never opened its title box');
    await page.keyboard.press('Escape');
  }
  await writeDraft('Follow the plan', ['Do what the plan says,', 'then stop.']);
  await clickQueueTask();
  // The place was chosen by the click: only the id is asked; Enter leaves it to Foreman.
  const idBox = workbench.quickInput();
  await idBox.getByText('task id (optional)').waitFor();
  await idBox.locator('input[type="text"]').press('Enter');

  await workbench.treeRow(QUEUE, 'Follow the plan').waitFor();
  const status = JSON.parse(repo.foreman('status', '--json')) as StatusJson;
  const follow = status.tasks.find((task) => task.title === 'Follow the plan');
  assert.equal(follow?.blockedBy, 'plan');
  await workbench.screenshot('after-plan');
});
