import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { HeartbeatHistory } from '../../../src/extension/dashboard/heartbeatHistory';
import { type SelectedFolder, type SnapshotInput, buildDashboardSnapshot } from '../../../src/extension/dashboard/snapshot';
import { type ViewState, defaultViewState } from '../../../src/shared/protocol';
import { dueSpans } from '../../../webview/dueSpans';
import { makeStatus } from './fixtures';

// Item 4 of issue 11: what the dashboard's Needs-you list, task tabs and heartbeat strips say.
const now = 1_700_000_000_000;
const info = { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false };

function input(status: StatusSnapshot, view: Partial<ViewState> = {}, states?: SelectedFolder['states']): SnapshotInput {
  return {
    now,
    folders: [info],
    view: { ...defaultViewState, ...view },
    selected: {
      info,
      status,
      heartbeats: () => [],
      ...(states ? { states } : {}),
      activity: undefined,
      liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
      heartbeatWindowMs: 300_000,
    },
  };
}

test('Needs you lists a task that failed for good once, under Failed, not also its FAILED worker as Stuck', () => {
  const base = makeStatus({ workers: 1, tasks: 4 });
  const task = { ...base.tasks[0]!, id: 'launch', title: 'Launch me', status: 'failed', parentId: null, workerId: 'ada', attempt: 1 };
  // What a launch failure leaves: the worker FAILED holding its task, with the monitor's verdict DEAD.
  const worker = {
    ...base.workers[0]!,
    id: 'ada',
    state: 'FAILED',
    taskId: 'launch',
    liveness: 'DEAD' as const,
    livenessReason: 'failed: command not found: claude',
    lastError: 'command not found: claude',
  };
  const snapshot = buildDashboardSnapshot(input({ ...base, workers: [worker], tasks: [task] }));
  const items = snapshot.folder!.attention.filter((item) => item.taskId === 'launch');
  assert.deepEqual(
    items.map((item) => [item.kind, item.title]),
    [['failed', 'Launch me']],
  );
  // A WORKING worker whose heartbeat stopped is still stuck.
  const silent = { ...worker, state: 'WORKING', liveness: 'STALE' as const, livenessReason: 'no heartbeat for 2m' };
  const running = { ...task, status: 'running' };
  const stuck = buildDashboardSnapshot(input({ ...base, workers: [silent], tasks: [running] })).folder!.attention;
  assert.deepEqual(
    stuck.map((item) => item.kind),
    ['stale'],
  );
  // A STALE worker whose agent was stopped says why it went stale, not its heartbeat since.
  const stopped = {
    ...worker,
    state: 'STALE',
    liveness: 'OK' as const,
    livenessReason: 'heartbeat 3s ago; pid 41 exited 143 on cancel',
    lastError: 'no output from the agent for 5s; process alive (pid 41)',
  };
  const stale = buildDashboardSnapshot(input({ ...base, workers: [stopped], tasks: [running] })).folder!.attention;
  assert.deepEqual(
    stale.map((item) => [item.kind, item.detail]),
    [['stale', 'no output from the agent for 5s; process alive (pid 41)']],
  );
});

test('the task panel opens on the first tab with tasks, and keeps the tab a person picked even when empty', () => {
  const base = makeStatus({ workers: 0, tasks: 1 });
  const done = ['a', 'b'].map((id) => ({ ...base.tasks[0]!, id, title: id, status: 'done', parentId: null, planningPhase: 'none' }));
  const status = { ...base, tasks: done };
  const opened = buildDashboardSnapshot(input(status)).folder!.tasks;
  assert.equal(opened.status, 'done');
  assert.equal(opened.items.length, 2);
  const picked = buildDashboardSnapshot(input(status, { taskStatus: 'queued' }));
  assert.equal(picked.folder!.tasks.status, 'queued');
  assert.equal(picked.folder!.tasks.items.length, 0);
  assert.equal(buildDashboardSnapshot(input({ ...base, tasks: [] })).folder!.tasks.status, 'queued', 'no tasks at all: the first tab');
});

test('worker cards carry the states they entered, so the strip knows when a heartbeat was due', () => {
  const history = new HeartbeatHistory(300_000);
  const base = makeStatus({ workers: 1, tasks: 4 });
  const at = (state: string, changed: number) => ({
    ...base,
    workers: [{ ...base.workers[0]!, id: 'ada', state, stateChangedAt: changed }],
  });
  history.observe('/repo', at('WORKING', now - 120_000), now - 100_000);
  history.observe('/repo', at('IN_REVIEW', now - 60_000), now - 50_000);
  history.observe('/repo', at('WORKING', now - 10_000), now);
  const card = buildDashboardSnapshot(input(at('WORKING', now - 10_000), {}, (id) => history.statesOf('/repo', id, now))).folder!.workers
    .items[0]!;
  assert.deepEqual(card.states, [
    { at: now - 120_000, expected: true },
    { at: now - 60_000, expected: false },
    { at: now - 10_000, expected: true },
  ]);
  // Without a history only the current state is known.
  const fresh = buildDashboardSnapshot(input(at('IN_REVIEW', now - 5_000))).folder!.workers.items[0]!;
  assert.deepEqual(fresh.states, [{ at: now - 5_000, expected: false }]);
});

test('the heartbeat strip shades silence only while a heartbeat was due, never the wait for review', () => {
  const states = [
    { at: 0, expected: true }, // ASSIGNED
    { at: 5, expected: true }, // WORKING: joins the one before
    { at: 50, expected: false }, // IN_REVIEW: no heartbeat is due
    { at: 91, expected: false }, // APPROVED
    { at: 100, expected: true }, // WORKING again (changes requested)
  ];
  assert.deepEqual(dueSpans(states, 130), [
    [0, 50],
    [100, 130],
  ]);
  assert.deepEqual(dueSpans([{ at: 10, expected: false }], 130), [], 'a worker in review has no due stretch');
  assert.deepEqual(dueSpans([], 130), [], 'nothing known, nothing shaded');
});

test('a running chain is not counted as a running task: with its one task in review, nothing runs', () => {
  const base = makeStatus({ workers: 1, tasks: 4 });
  const parent = { ...base.tasks[0]!, id: 'chain', title: 'Chain', status: 'running', parentId: null, planningPhase: 'finalized' };
  const child = { ...base.tasks[0]!, id: 'step', title: 'Step', status: 'running', parentId: 'chain', planningPhase: 'none' };
  const worker = { ...base.workers[0]!, id: 'ada', state: 'IN_REVIEW', taskId: 'step' };
  const stats = buildDashboardSnapshot(input({ ...base, workers: [worker], tasks: [parent, child] })).folder!.stats;
  assert.deepEqual([stats.running, stats.inReview], [0, 1]);
});
