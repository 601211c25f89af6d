/**
 * The Workers and Queue rows of two tasks that overlap (issue 33): the badge words, the icon, the
 * tooltip naming the files, the detail rows and the `.overlap` marker the menus follow. The tree
 * providers run against the small `vscode` shim the benchmarks use (plain data holders: the real API
 * exists only inside an extension host; the rows in a real VS Code are in test/e2e/overlap.e2e.ts).
 */
import '../../../bench/support/vscodeShim';
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type * as vscode from 'vscode';
import type { TaskOverlap } from '../../../src/core/overlaps';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { english } from '../../../src/extension/localizer';
import { SessionRegistry } from '../../../src/extension/sessionRegistry';
import { overlapBadge } from '../../../src/extension/tree/overlapBadge';
import { type QueueNode, QueueTreeProvider } from '../../../src/extension/tree/queueTree';
import { type WorkerNode, WorkersTreeProvider } from '../../../src/extension/tree/workersTree';
import { FakeSession } from '../dashboard/fakeSession';
import { overlapStatus } from '../dashboard/fixtures';

const sameFile: TaskOverlap = {
  taskId: 'task-b',
  workerId: 'worker-b',
  title: 'Task B',
  files: ['src/app.ts', 'src/util.ts'],
  hunks: false,
  plan: null,
};
const sameLines: TaskOverlap = { ...sameFile, hunks: true, plan: 'rebase-when-merged' };

/** A session whose worktrees are where a worker's detail row says. */
class Session extends FakeSession {
  override worktreePath(): string {
    return '/worktrees/w';
  }
}

const registries: SessionRegistry[] = [];
function views(status: StatusSnapshot) {
  const registry = new SessionRegistry();
  registries.push(registry);
  registry.add(new Session(status));
  return { workers: new WorkersTreeProvider(registry), queue: new QueueTreeProvider(registry) };
}
after(() => registries.forEach((registry) => registry.dispose()));

const iconOf = (item: vscode.TreeItem) => {
  const icon = item.iconPath as unknown as { id: string; color?: { id: string } };
  return [icon.id, icon.color?.id];
};
const textOf = (tooltip: vscode.TreeItem['tooltip']) => (typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? ''));

test('a worker whose task overlaps another shows the badge: the other task and its files, in words, icon and tooltip', () => {
  const { workers } = views(overlapStatus(sameFile));
  const [rowA] = workers.getChildren();
  assert.ok(rowA?.kind === 'worker' && rowA.worker.id === 'worker-a');
  const item = workers.getTreeItem(rowA);
  assert.match(String(item.description), /^WORKING · ≈ overlaps task-b \(2 files\) · Task A/);
  assert.deepEqual(iconOf(item), ['files', 'list.warningForeground']);
  assert.equal(item.contextValue, 'worker.WORKING.overlap');
  const tooltip = textOf(workers.resolveTreeItem(item, rowA).tooltip);
  assert.match(tooltip, /\*\*Overlaps\*\* `task-b` Task B on worker-b: 2 files, same files, different lines/);
  assert.match(tooltip, /- `src\/app\.ts`\n- `src\/util\.ts`/);
  const details = workers.getChildren(rowA).map((node: WorkerNode) => (node.kind === 'detail' ? [node.label, node.value] : []));
  assert.deepEqual(details[0], ['Task', 'Task A (task-a)']);
  assert.deepEqual(details[1], ['Overlaps task-b', '2 files · same files, different lines · src/app.ts, src/util.ts']);
});

test('changed lines that meet are the louder warning, and the chosen plan is said', () => {
  const { workers } = views(overlapStatus(sameLines));
  const [rowA] = workers.getChildren();
  assert.ok(rowA?.kind === 'worker');
  const item = workers.getTreeItem(rowA);
  assert.match(String(item.description), /^WORKING · ⚠ overlaps task-b \(2 files\) · Task A/);
  assert.deepEqual(iconOf(item), ['warning', 'list.errorForeground']);
  assert.match(
    textOf(workers.resolveTreeItem(item, rowA).tooltip),
    /changed lines overlap[\s\S]*rebases onto the base as soon as task-b merges/,
  );
});

test('the running task rows in the Queue view carry the badge and the .overlap marker too', () => {
  const { queue } = views(overlapStatus(sameLines));
  const [group] = queue.getChildren();
  assert.ok(group);
  assert.equal(queue.getTreeItem(group).label, 'In progress (2)');
  const rows = queue.getChildren(group).map((node: QueueNode) => queue.getTreeItem(node));
  assert.deepEqual(
    rows.map((row) => [row.label, row.contextValue]),
    [
      ['Task A', 'task.running.overlap'],
      ['Task B', 'task.running.overlap'],
    ],
  );
  assert.match(String(rows[0]?.description), /^task-a · ⚠ overlaps task-b \(2 files\) · running · on worker-a · attempt 1\/3$/);
  assert.match(textOf(rows[1]?.tooltip), /\*\*Overlaps\*\* `task-a` Task A on worker-a/);
});

test('a row without overlaps is drawn as before: no badge, no marker', () => {
  const status = overlapStatus(sameFile);
  const quiet = {
    ...status,
    workers: status.workers.map((w) => ({ ...w, overlaps: [] })),
    tasks: status.tasks.map((t) => ({ ...t, overlaps: [] })),
  };
  const { workers, queue } = views(quiet);
  const [rowA] = workers.getChildren();
  assert.ok(rowA);
  const item = workers.getTreeItem(rowA);
  assert.equal(item.contextValue, 'worker.WORKING');
  assert.doesNotMatch(String(item.description), /overlaps/);
  const [group] = queue.getChildren();
  assert.ok(group);
  assert.deepEqual(
    queue.getChildren(group).map((node) => queue.getTreeItem(node).contextValue),
    ['task.running', 'task.running'],
  );
  assert.equal(overlapBadge([], english), undefined);
});

test('several overlaps are named together, the loudest deciding the icon', () => {
  const badge = overlapBadge([sameFile, { ...sameLines, taskId: 'task-c', files: ['README.md'] }], english);
  assert.ok(badge);
  assert.equal(badge.description, '⚠ overlaps task-b (2 files), task-c (1 file)');
  assert.deepEqual(badge.icon, ['warning', 'list.errorForeground']);
  assert.deepEqual(
    badge.details.map((detail) => [detail.label, detail.icon]),
    [
      ['Overlaps task-b', 'files'],
      ['Overlaps task-c', 'warning'],
    ],
  );
});
