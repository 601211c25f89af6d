// Overlaps in a real VS Code (code-server + chromium), issue 33: two demo agents change the same
// line of the same file. Once `foreman status --json` reports the overlap on both workers, the rows
// of the Workers and Queue views name the other task and the file count, the worker rows' context
// menus offer Run After, Rebase When Merged and Ignore for this Pair, both dashboard cards carry the
// badge and an edge joins them; Ignore for this Pair (from a card) makes all of it go, in the tree
// and on the cards.
// Screenshots: test-results/overlap-*.png.
// Run: node --import tsx --test test/e2e/overlap.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { pollUntil } from '../support/pollUntil';
import { type TestRepo, ensureBuilt, makeTestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

const WORKERS = 'Workers';

interface Status {
  workers: Array<{ id: string; state: string; taskId: string | null; overlaps?: Array<{ taskId: string; hunks: boolean }> }>;
}

let scratch: string;
let repo: TestRepo;
let workbench: Workbench;
let dashboard: FrameLocator;
/** Each worker's task, once both hold one. */
let taskOf: Record<string, string> = {};

const status = (): Status => JSON.parse(repo.foreman('status', '--json')) as Status;
const card = (id: string) => dashboard.locator(`.worker-card[data-worker="${id}"]`);
const description = (worker: string) => workbench.treeRow(WORKERS, worker).locator('.label-description');

/** Waits for the state a step ends in, as the CLI reads it. */
function statusUntil(what: string, holds: (state: Status) => boolean, timeoutMs = 90_000): Promise<Status> {
  return pollUntil(
    () => {
      const state = status();
      return holds(state) && state;
    },
    { what, timeoutMs, intervalMs: 300 },
  );
}

/** A demo agent's script: change line 1 of shared.txt (both do: their changed lines meet), then keep working. */
const script = (who: string) => [`replace-line shared.txt 1 ${who} was here`, 'progress 0.5', 'sleep 240000'].join('\n');

before(
  async () => {
    ensureBuilt();
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-overlap-e2e-')));
    repo = makeTestRepo(join(scratch, 'repo'), { 'shared.txt': 'line one\nline two\nline three\n', 'README.md': '# Overlaps\n' });
    repo.foreman('init');
    repo.foreman('worker', 'add', 'ada', '--agent', 'demo');
    repo.foreman('worker', 'add', 'grace', '--agent', 'demo');
    repo.foreman('task', 'add', 'Reword the first line', '--id', 'reword-a', '--prompt', script('A'));
    repo.foreman('task', 'add', 'Shout the first line', '--id', 'reword-b', '--prompt', script('B'));
    // A loaded machine (other suites running) can take more than the default minute to show the folder.
    workbench = await launchWorkbench({ folder: repo.dir, extensionPath: repoRoot, name: 'overlap', timeoutMs: 150_000 });
    await workbench.page.setViewportSize({ width: 1500, height: 1000 });
    dashboard = workbench.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 90_000 });
    await workbench.clickActivityBar('Foreman');
    await workbench.treeRow(WORKERS, 'ada').waitFor({ timeout: 60_000 });
  },
  { timeout: 240_000 },
);

after(async () => {
  // The agents sleep for minutes: stop them before the window goes.
  for (const worker of ['ada', 'grace']) {
    try {
      repo?.foreman('cancel', worker);
    } catch {
      // Already stopped, or the owner went with the window: nothing left to stop.
    }
  }
  await workbench?.close();
  // An agent being stopped may still write its log for a moment: retry rather than fail the run.
  if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

test('two agents on the same line: status reports the overlap on both workers', { timeout: 150_000 }, async () => {
  const state = await statusUntil(
    'both workers to report the overlap',
    (s) => s.workers.length === 2 && s.workers.every((worker) => worker.taskId && worker.overlaps?.length),
    120_000,
  );
  taskOf = Object.fromEntries(state.workers.map((worker) => [worker.id, worker.taskId ?? '']));
  for (const worker of state.workers) {
    const other = state.workers.find((candidate) => candidate.id !== worker.id)!;
    assert.deepEqual(
      worker.overlaps?.map((overlap) => overlap.taskId),
      [other.taskId],
    );
  }
});

test('the Workers rows name the other task and the file, and their menus offer the three answers', { timeout: 120_000 }, async () => {
  for (const [worker, other] of [
    ['ada', 'grace'],
    ['grace', 'ada'],
  ] as const) {
    await description(worker)
      .filter({ hasText: `overlaps ${taskOf[other]} (1 file)` })
      .waitFor({ timeout: 30_000 });
  }
  // The tasks' rows in Queue & Chains say it too.
  for (const [title, other] of [
    ['Reword the first line', 'reword-b'],
    ['Shout the first line', 'reword-a'],
  ] as const) {
    await workbench
      .treeRow('Queue & Chains', title)
      .locator('.label-description', { hasText: `overlaps ${other} (1 file)` })
      .waitFor({ timeout: 30_000 });
  }
  await workbench.screenshot('tree');
  const { page } = workbench;
  // A row redrawn while its menu is open closes the menu (a heartbeat's activity, say): open it again until it stays.
  for (let round = 1; ; round++) {
    await workbench.treeRow(WORKERS, 'ada').click({ button: 'right' });
    const shown = await page
      .getByRole('menuitem', { name: /Ignore the Overlap for this Pair/ })
      .waitFor({ timeout: 5_000 })
      .then(
        () => true,
        () => false,
      );
    if (shown) break;
    assert.ok(round < 4, 'the overlap answers never showed in the row menu');
    await page.keyboard.press('Escape');
  }
  for (const title of [/Run After the Overlapping Task/, /Rebase When the Overlapping Task Merges/]) {
    assert.equal(await page.getByRole('menuitem', { name: title }).count(), 1, `${String(title)} is in the menu`);
  }
  await page.keyboard.press('Escape');
});

test('both dashboard cards carry the badge, and an edge joins them', { timeout: 120_000 }, async () => {
  await workbench.runCommand('Foreman: Open Dashboard');
  for (const [worker, other] of [
    ['ada', 'grace'],
    ['grace', 'ada'],
  ] as const) {
    await card(worker)
      .locator('.overlap-badge.hunks', { hasText: `overlaps ${taskOf[other]}` })
      .waitFor({ timeout: 30_000 });
    const line = card(worker).locator(`.overlap[data-overlap="${taskOf[other]}"]`);
    assert.match(await line.innerText(), /shared\.txt/);
    assert.equal(await line.locator('vscode-button[data-action="overlapIgnore"]').count(), 1);
  }
  const edge = dashboard.locator('path.overlap-edge.hunks[data-overlap-edge="ada|grace"]');
  await edge.waitFor({ state: 'attached', timeout: 10_000 });
  assert.match((await edge.getAttribute('d')) ?? '', /^M[\d.-]+ [\d.-]+C/);
  await workbench.screenshot('dashboard');
});

test('Ignore for this Pair from a card: the badges, the edge and the tree words go', { timeout: 120_000 }, async () => {
  await card('ada').locator(`.overlap[data-overlap="${taskOf['grace']}"] vscode-button[data-action="overlapIgnore"]`).click();
  await statusUntil('the pair to be ignored on both sides', (s) => s.workers.every((worker) => !worker.overlaps?.length), 30_000);
  for (const worker of ['ada', 'grace']) {
    await card(worker).locator('.overlap-badge').waitFor({ state: 'detached', timeout: 15_000 });
  }
  await dashboard.locator('path.overlap-edge').waitFor({ state: 'detached', timeout: 15_000 });
  // The views follow without Refresh: both rows drop the words (their tasks still run).
  await workbench.clickActivityBar('Foreman');
  for (const worker of ['ada', 'grace']) {
    await description(worker)
      .filter({ hasText: /^WORKING/ })
      .waitFor({ timeout: 15_000 });
    await pollUntil(async () => !/overlaps/.test(await description(worker).innerText()), {
      what: `${worker}'s row to drop the overlap`,
      timeoutMs: 15_000,
      intervalMs: 200,
    });
  }
  await workbench.screenshot('ignored');
});
