import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { buildDashboardSnapshot, type SnapshotInput } from '../../../src/extension/dashboard/snapshot';
import { type ViewState, defaultViewState, pageSizes } from '../../../src/shared/protocol';
import { confinementWords } from '../../../src/shared/confinementWords';
import { makeStatus, makeTransitions } from './fixtures';

const now = 1_700_000_000_000;
const info = { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false };

function input(status: StatusSnapshot, view: Partial<ViewState> = {}, extra: Partial<SnapshotInput['selected']> = {}): SnapshotInput {
  return {
    now,
    folders: [info],
    view: { ...defaultViewState, ...view },
    selected: {
      info,
      status,
      heartbeats: () => [now - 20_000, now - 10_000],
      activity: undefined,
      liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
      heartbeatWindowMs: 300_000,
      ...extra,
    },
  };
}

test('without a folder the snapshot says so', () => {
  const snapshot = buildDashboardSnapshot({ now, folders: [], view: defaultViewState, selected: undefined });
  assert.equal(snapshot.folder, null);
  assert.equal(snapshot.view.folder, null);
});

test('workers are paged and carry their task, heartbeats and the actions of their state', () => {
  const status = makeStatus({ workers: 200, tasks: 500 });
  const snapshot = buildDashboardSnapshot(input(status));
  const workers = snapshot.folder!.workers;
  assert.equal(workers.total, 200);
  assert.equal(workers.items.length, pageSizes.workers);
  const review = workers.items.find((worker) => worker.state === 'IN_REVIEW')!;
  assert.deepEqual(review.actions, ['approve', 'requestChanges', 'showChanges', 'showLog', 'cancel']);
  assert.equal(review.taskTitle, status.tasks.find((task) => task.id === review.taskId)!.title);
  assert.deepEqual(review.heartbeatsAt, [now - 20_000, now - 10_000]);
  assert.deepEqual(workers.items.find((worker) => worker.state === 'IDLE')!.actions, ['assign']);
  assert.deepEqual(workers.items.find((worker) => worker.state === 'APPROVED')!.actions.slice(0, 1), ['merge']);
  assert.equal(snapshot.folder!.workerCounts['WORKING'], 60);
});

test("each card says how its worker's run is confined, and which words and warning go with it", () => {
  const status = makeStatus({ workers: 10, tasks: 20 });
  const cards = buildDashboardSnapshot(input(status)).folder!.workers.items;
  for (const card of cards) assert.equal(card.confinement, status.workers.find((worker) => worker.id === card.id)!.confinement, card.id);
  assert.ok(cards.some((card) => card.confinement === 'open') && cards.some((card) => card.confinement === 'sandbox'));
  assert.deepEqual(confinementWords('open'), { label: 'unconfined', detail: 'unconfined: this agent may run any command', warning: true });
  assert.equal(confinementWords('sandbox').warning, false);
});

test('a page beyond the end is clamped to the last page, and the view echoes it', () => {
  const snapshot = buildDashboardSnapshot(input(makeStatus({ workers: 130, tasks: 10 }), { workersPage: 99 }));
  assert.equal(snapshot.folder!.workers.page, 2);
  assert.equal(snapshot.folder!.workers.items.length, 10);
  assert.equal(snapshot.view.workersPage, 2);
  assert.equal(snapshot.view.folder, '/repo');
});

test('chains hold their tasks in order with the blocked-by edges inside the chain', () => {
  const status = makeStatus({ workers: 4, tasks: 100, chainLength: 10 });
  const snapshot = buildDashboardSnapshot(input(status));
  const chains = snapshot.folder!.chains;
  assert.equal(chains.total, 6);
  const first = chains.items[0]!;
  assert.equal(first.parent.id, 'chain-0');
  assert.deepEqual(
    first.nodes.map((node) => node.id),
    Array.from({ length: 9 }, (_, i) => `chain-0-s${i}`),
  );
  assert.equal(first.done, 3);
  assert.deepEqual(first.edges[0], { from: 'chain-0-s3', to: 'chain-0-s4' });
  assert.equal(first.edges.length, 5);
  assert.deepEqual(first.nodes[3]!.actions, ['cancelTask']);
  assert.deepEqual(first.nodes[5]!.actions, ['cancelTask'], 'a blocked task cannot be assigned');
});

test('free tasks are grouped by status with counts, one status and page at a time', () => {
  const status = makeStatus({ workers: 2, tasks: 1000, chainLength: 10 });
  const snapshot = buildDashboardSnapshot(input(status, { taskStatus: 'failed', taskPage: 0 }));
  const tasks = snapshot.folder!.tasks;
  assert.equal(tasks.status, 'failed');
  assert.equal(tasks.counts['failed'], 50);
  assert.equal(tasks.counts['queued'], 100);
  assert.equal(tasks.total, 50);
  assert.equal(tasks.items.length, 50);
  assert.ok(tasks.items.every((task) => task.status === 'failed' && task.actions.includes('retry')));
});

test('what needs a person: reviews, merges, stuck workers, failed tasks', () => {
  const snapshot = buildDashboardSnapshot(input(makeStatus({ workers: 10, tasks: 40 })));
  const kinds = snapshot.folder!.attention.map((item) => item.kind);
  assert.deepEqual([...new Set(kinds)], ['review', 'merge', 'stale', 'failed']);
  const stale = snapshot.folder!.attention.find((item) => item.kind === 'stale')!;
  assert.match(stale.detail, /no heartbeat/);
});

test('the activity timeline is newest first, filtered, and cut to the limit', () => {
  const transitions = makeTransitions(1000);
  const activity = { transitions, metrics: undefined, loadedAt: now };
  const all = buildDashboardSnapshot(input(makeStatus({ workers: 10, tasks: 10 }), {}, { activity })).folder!.activity;
  assert.equal(all.loaded, true);
  assert.equal(all.matching, 1000);
  assert.equal(all.items.length, pageSizes.activityStep);
  assert.equal(all.items[0]!.seq, 1000);
  const byWorker = buildDashboardSnapshot(
    input(
      makeStatus({ workers: 10, tasks: 10 }),
      { activity: { worker: 'worker-002', task: null, state: null, limit: 200 } },
      { activity },
    ),
  ).folder!.activity;
  assert.equal(byWorker.matching, 100);
  assert.ok(byWorker.items.every((item) => item.id === 'worker-002'));
  const byState = buildDashboardSnapshot(
    input(makeStatus({ workers: 1, tasks: 1 }), { activity: { worker: null, task: null, state: 'running', limit: 200 } }, { activity }),
  ).folder!.activity;
  assert.equal(byState.matching, 500);
});

test('statistics come from the status at once and from the metrics once read', () => {
  const status = makeStatus({ workers: 10, tasks: 100 });
  const before = buildDashboardSnapshot(input(status)).folder!.stats;
  assert.equal(before.throughputPerHour, null);
  assert.equal(before.inReview, 1);
  assert.equal(before.queued, status.tasks.filter((task) => task.status === 'queued').length);
  const metrics = {
    transitions: [{ entity: 'task', from: 'queued', to: 'running', count: 7 }],
    timeInState: [{ entity: 'task', state: 'running', count: 3, meanMs: 4000, maxMs: 9000 }],
    rejected: { total: 2, byCode: { illegalTransition: 2 } },
    idempotency: { hits: 0, keys: 0 },
    queue: {},
    throughputPerHour: 12,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
    archived: {},
  };
  const after = buildDashboardSnapshot(input(status, {}, { activity: { transitions: [], metrics, loadedAt: now } })).folder!.stats;
  assert.equal(after.throughputPerHour, 12);
  assert.equal(after.transitions, 7);
  assert.equal(after.rejected, 2);
  assert.deepEqual(after.timeInState, metrics.timeInState);
});

test("strings pass through untouched: escaping is the webview's job, not the builder's", () => {
  const status = makeStatus({ workers: 3, tasks: 20 });
  const hostile = '<img src=x onerror=alert(1)> & "quotes" \u202e';
  const tasks = status.tasks.map((task) => ({ ...task, title: hostile, lastError: task.lastError && hostile }));
  const snapshot = buildDashboardSnapshot(input({ ...status, tasks }, { taskStatus: 'failed' }));
  assert.ok(snapshot.folder!.chains.items[0]!.nodes.every((node) => node.title === hostile));
  assert.ok(snapshot.folder!.workers.items.filter((worker) => worker.taskId).every((worker) => worker.taskTitle === hostile));
  assert.equal(snapshot.folder!.tasks.items[0]!.lastError, hostile);
});

test('a worker card carries what its agent is doing, whether it waits for you, and what it used', () => {
  const status = makeStatus({ workers: 10, tasks: 100 });
  const working = status.workers.find((worker) => worker.state === 'WORKING')!;
  const waiting = { ...working, id: 'waiting-one', needsInput: { message: 'Bash: rm -rf build', at: now - 5_000 } };
  const usage = { inputTokens: 10_000, outputTokens: 2_400, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.42 };
  const withWait: StatusSnapshot = { ...status, workers: [...status.workers, waiting], usage };
  const folder = buildDashboardSnapshot(input(withWait)).folder!;
  const card = folder.workers.items.find((worker) => worker.id === working.id)!;
  assert.deepEqual(card.activity, { text: 'Bash: npm test', at: now - 2_000 });
  assert.equal(card.needsInput, null);
  assert.deepEqual(card.usage, working.usage);
  const waitingCard = folder.workers.items.find((worker) => worker.id === 'waiting-one')!;
  assert.deepEqual(waitingCard.needsInput, { message: 'Bash: rm -rf build', at: now - 5_000 });
  // The wait leads "Needs you", with what answers it.
  assert.deepEqual(folder.attention[0], {
    kind: 'input',
    workerId: 'waiting-one',
    taskId: waiting.taskId,
    title: status.tasks.find((task) => task.id === waiting.taskId)!.title,
    detail: 'Bash: rm -rf build',
    since: now - 5_000,
    actions: ['allow', 'deny', 'openTerminal', 'showLog'],
  });
  // The card answers it too, before anything else; a worker that does not wait offers no answer.
  assert.deepEqual(waitingCard.actions.slice(0, 2), ['allow', 'deny']);
  assert.ok(!card.actions.includes('allow') && !card.actions.includes('deny'));
  assert.equal(folder.attention.filter((item) => item.kind === 'input').length, 1);
  assert.deepEqual(folder.stats.usage, usage);
});

test('task items carry their usage, in the free list and in chains', () => {
  const status = makeStatus({ workers: 4, tasks: 40, chainLength: 10 });
  const usage = { inputTokens: 500, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.003 };
  const tasks = status.tasks.map((task) => ({ ...task, usage }));
  const folder = buildDashboardSnapshot(input({ ...status, tasks })).folder!;
  assert.ok(folder.tasks.items.every((task) => task.usage.inputTokens === 500));
  assert.ok(folder.chains.items.every((chain) => chain.nodes.every((node) => node.usage.costUsd === 0.003)));
});

test('a task whose worker waits for review or merge counts as in review, not also as running', () => {
  const base = makeStatus({ workers: 3, tasks: 3 });
  const tasks = base.tasks
    .slice(0, 3)
    .map((task, index) => ({ ...task, id: `t${index}`, status: 'running', parentId: null, planningPhase: 'none' }));
  const workers = ['WORKING', 'IN_REVIEW', 'APPROVED'].map((state, index) => ({
    ...base.workers[0]!,
    id: `w${index}`,
    state,
    taskId: `t${index}`,
  }));
  const stats = buildDashboardSnapshot(input({ ...base, workers, tasks })).folder!.stats;
  assert.deepEqual([stats.running, stats.inReview], [1, 1]);
});
