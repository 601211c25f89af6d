// The tree views follow the state (issue 31 finding 6), in a real VS Code (code-server + chromium):
// the window owns a repository with one demo worker; a chain whose first task fails for good, then
// a task taken through review, approval (from the CLI) and merge (from the Workers row). At each resting point the rows of the Workers
// and Queue views must come to say what `foreman status --json` says, without Refresh: a view that
// kept a row from before ("running · 0/2 done" on a failed chain, APPROVED after the merge) never
// does, and the wait names the rows that differ.
// Screenshots: test-results/trees-*.png.
// Run: node --import tsx --test test/e2e/treesFollowState.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { groupName, stageWords } from '../../src/extension/tree/queueGrouping';
import { pollUntil } from '../support/pollUntil';
import { ensureBuilt, makeTestRepo, type TestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

const WORKERS = 'Workers';
const QUEUE = 'Queue & Chains';
/** Statuses whose group starts collapsed: their tasks' rows are not on screen. */
const collapsedGroups = new Set(['done', 'cancelled']);
const groupOrder = ['running', 'queued', 'idle', 'failed', 'cancelled', 'done'];

interface Status {
  workers: Array<{ id: string; state: string; taskId: string | null; needsInput: unknown }>;
  tasks: Array<{ id: string; title: string; status: string; parentId: string | null; planningPhase: string; workerId: string | null }>;
}

let scratch: string;
let repo: TestRepo;
let workbench: Workbench;

const status = (): Status => JSON.parse(repo.foreman('status', '--json')) as Status;

/** Each visible row of a view as "label — description". */
async function rowsOf(view: string): Promise<string[]> {
  // No named functions inside: the page runs this text as it is, without tsx's helpers.
  const rows = await workbench
    .treeRows(view)
    .evaluateAll((elements): Array<[string, string]> =>
      elements.map((row) => [
        String(row.querySelector('.label-name')?.textContent ?? ''),
        String(row.querySelector('.label-description')?.textContent ?? ''),
      ]),
    );
  return rows.map(([label = '', description = '']) => `${label.trim()} — ${description.trim()}`);
}

/** What the Workers view should show for a state: each worker's id and the state its row starts with. */
function expectedWorkers(state: Status): string[] {
  return state.workers.map((worker) => `${worker.id} — ${worker.state}`);
}

/** What the Queue view should show: the chains with their tasks in order, then each status group, in task words. */
function expectedQueue(state: Status): string[] {
  const rows: string[] = [];
  const stageOf = new Map(state.workers.flatMap((w) => (w.taskId && w.state in stageWords ? [[w.taskId, stageWords[w.state]]] : [])));
  const word = (task: Status['tasks'][number]) => (task.status === 'running' ? (stageOf.get(task.id) ?? 'running') : task.status);
  const parents = state.tasks.filter((task) => task.planningPhase !== 'none');
  if (parents.length) rows.push(`Chains (${parents.length}) — `);
  for (const parent of parents) {
    const children = state.tasks.filter((task) => task.parentId === parent.id);
    const done = children.filter((task) => task.status === 'done').length;
    rows.push(`${parent.title} — ${parent.status} · ${done}/${children.length} done`);
    children.forEach((task, index) => rows.push(`${index + 1}. ${task.title} — ${task.id} · ${word(task)}`));
  }
  for (const group of groupOrder) {
    const tasks = state.tasks.filter((task) => task.planningPhase === 'none' && !task.parentId && task.status === group);
    if (!tasks.length) continue;
    rows.push(`${groupName(group)} (${tasks.length}) — `);
    if (!collapsedGroups.has(group)) tasks.forEach((task) => rows.push(`${task.title} — ${task.id} · ${word(task)}`));
  }
  return rows;
}

/**
 * Waits until both views say what `status` says, read again at each look (a step still moving
 * settles; a view that lags never matches). The rows are cut to what the expectation names: a
 * worker's row goes on after its state, a task's after its status (worker, attempt, blocked by).
 */
async function treesMatchStatus(step: string): Promise<Status> {
  let last = '';
  return pollUntil(
    async () => {
      const state = status();
      const workers = expectedWorkers(state);
      const queue = expectedQueue(state);
      const shownWorkers = await rowsOf(WORKERS);
      const shownQueue = await rowsOf(QUEUE);
      const cut = (shown: string[], expected: string[]) => shown.map((row, index) => row.slice(0, expected[index]?.length ?? row.length));
      const sameWorkers = JSON.stringify(cut(shownWorkers, workers)) === JSON.stringify(workers);
      const sameQueue = JSON.stringify(cut(shownQueue, queue)) === JSON.stringify(queue);
      last = `status says\n  ${[...workers, ...queue].join('\n  ')}\nthe views show\n  ${[...shownWorkers, ...shownQueue].join('\n  ')}`;
      return sameWorkers && sameQueue && state;
    },
    { what: `the Workers and Queue views to match \`foreman status\` ${step}`, timeoutMs: 20_000, intervalMs: 200, detail: () => last },
  );
}

/** Waits for the state a step ends in, as the CLI reads it. */
function statusUntil(what: string, holds: (state: Status) => boolean, timeoutMs = 90_000): Promise<Status> {
  return pollUntil(() => {
    const state = status();
    return holds(state) && state;
  }, { what, timeoutMs, intervalMs: 300 });
}

before(
  async () => {
    ensureBuilt();
    scratch = mkdtempSync(join(tmpdir(), 'foreman-trees-'));
    repo = makeTestRepo(join(scratch, 'repo'), { 'README.md': '# Trees\n' });
    repo.foreman('init');
    repo.foreman('worker', 'add', 'ada', '--agent', 'demo');
    // A manual task: never dispatched, so it stays in its group the whole test.
    repo.foreman('task', 'add', 'Write the notes by hand', '--manual');
    workbench = await launchWorkbench({
      folder: repo.dir,
      extensionPath: repoRoot,
      name: 'trees',
      // One attempt per task: the chain's first task fails for good on its first failure.
      settings: { 'foreman.maxAttempts': 1 },
    });
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

test('a manual task is grouped in task words, not under "Idle"', { timeout: 60_000 }, async () => {
  await workbench.treeRow(QUEUE, 'To assign (1)').waitFor();
  assert.equal(await workbench.treeRow(QUEUE, 'Idle (1)').count(), 0);
  await treesMatchStatus('at the start');
});

test('each step of a failing chain shows in both views as `status` says it', { timeout: 180_000 }, async () => {
  const checklist = join(scratch, 'chain.md');
  writeFileSync(checklist, '# Doomed build\n\n- Break the build\n  fail the compiler is missing\n- Ship it\n');
  repo.foreman('chain', 'add', '--from', checklist);
  await treesMatchStatus('after the chain was added');
  const failed = await statusUntil('the chain to fail', (state) => state.tasks.find((task) => task.title === 'Doomed build')?.status === 'failed');
  assert.equal(failed.tasks.find((task) => task.title === 'Break the build')?.status, 'failed');
  await treesMatchStatus('after the chain failed');
  await workbench.treeRow(QUEUE, 'Doomed build').locator('.label-description', { hasText: /^failed · 0\/2 done$/ }).waitFor();
  await workbench.screenshot('chain-failed');
});

test('a task through review, approval and merge: the views follow each step, APPROVED gone after the merge', { timeout: 180_000 }, async () => {
  // A task that failed for good may leave its worker FAILED, holding it for a person to see.
  if (status().workers.find((worker) => worker.id === 'ada')?.state === 'FAILED') {
    repo.foreman('reset', 'ada');
    await treesMatchStatus('after the worker was reset');
  }
  repo.foreman('task', 'add', 'Add a changelog', '--prompt', 'write CHANGELOG.md Nothing yet.\ncommit Add a changelog');
  await statusUntil('ada to reach review', (state) => state.workers.find((worker) => worker.id === 'ada')?.state === 'IN_REVIEW');
  await treesMatchStatus('in review');
  repo.foreman('approve', 'ada');
  await treesMatchStatus('after the approval');
  // Merged from the row, as a person does: the toast says it is merged, and the rows must follow.
  await workbench.clickRowAction(WORKERS, 'ada', 'Merge');
  await workbench.notifications().filter({ hasText: /Foreman: merged "Add a changelog"/ }).first().waitFor({ timeout: 60_000 });
  const merged = await treesMatchStatus('after the merge');
  assert.notEqual(merged.workers.find((worker) => worker.id === 'ada')?.state, 'APPROVED');
  assert.equal(merged.tasks.find((task) => task.title === 'Add a changelog')?.status, 'done');
  await workbench.treeRow(QUEUE, 'Done (1)').waitFor();
  await workbench.screenshot('merged');
});
