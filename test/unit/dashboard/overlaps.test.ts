/**
 * Overlaps on the dashboard (issue 33): the cards carry them from the engine's status, the host
 * checks an answer against the overlap the engine still reports before running it, and the edge
 * between two cards is placed from their boxes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskOverlap } from '../../../src/core/overlaps';
import { DashboardHost, type ResolvedAction } from '../../../src/extension/dashboard/dashboardHost';
import { HeartbeatHistory } from '../../../src/extension/dashboard/heartbeatHistory';
import { buildDashboardSnapshot } from '../../../src/extension/dashboard/snapshot';
import { changesOf } from '../../../src/extension/statusModel';
import {
  dashboardSnapshotSchema,
  defaultViewState,
  type HostMessage,
  protocolVersion,
  webviewMessageSchema,
} from '../../../src/shared/protocol';
import { overlapActions } from '../../../src/shared/overlapWords';
import { edgePath, overlapPairs } from '../../../webview/overlapEdges';
import { ManualClock } from '../../support/manualClock';
import { FakeSession } from './fakeSession';
import { overlapStatus } from './fixtures';

const now = 1_700_000_000_000;
const info = { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false };
const overlap: TaskOverlap = { taskId: 'task-b', workerId: 'worker-b', title: 'Task B', files: ['src/app.ts'], hunks: true, plan: null };

test('each card carries its overlaps, and the snapshot still parses', () => {
  const snapshot = buildDashboardSnapshot({
    now,
    folders: [info],
    view: defaultViewState,
    selected: {
      info,
      status: overlapStatus(overlap),
      heartbeats: () => [],
      activity: undefined,
      liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
      heartbeatWindowMs: 300_000,
    },
  });
  const cards = snapshot.folder?.workers.items ?? [];
  assert.deepEqual(
    cards.map((card) => [card.id, card.overlaps.map((o) => [o.taskId, o.workerId, o.files, o.hunks])]),
    [
      ['worker-a', [['task-b', 'worker-b', ['src/app.ts'], true]]],
      ['worker-b', [['task-a', 'worker-a', ['src/app.ts'], true]]],
    ],
  );
  assert.ok(dashboardSnapshotSchema.safeParse(snapshot).success);
  // One edge for the pair, whichever side reports it, and the louder kind when lines meet.
  assert.deepEqual(overlapPairs(cards), [{ key: 'worker-a|worker-b', a: 'worker-a', b: 'worker-b', hunks: true }]);
  // A card whose other worker is on another page has nothing to join.
  assert.deepEqual(overlapPairs(cards.slice(0, 1)), []);
});

test('an overlap answer names the pair; other targets and other actions are refused by the schema or the host', async () => {
  const session = new FakeSession(overlapStatus(overlap));
  const posted: HostMessage[] = [];
  const actions: ResolvedAction[] = [];
  const host = new DashboardHost({
    sessions: () => [session],
    onDidChangeSessions: changesOf(session),
    heartbeats: new HeartbeatHistory(),
    post: (message) => (posted.push(message), Promise.resolve(true)),
    runAction: (action) => (actions.push(action), Promise.resolve({ ok: true })),
    liveness: () => ({ warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 }),
    log: () => undefined,
    clock: new ManualClock(),
  });
  host.receive({ type: 'ready', protocol: protocolVersion });
  const send = (requestId: string, action: string, target: unknown) =>
    host.receive({ type: 'action', requestId, folder: '/repo', action, target });
  send('ok1', 'overlapIgnore', { kind: 'overlap', id: 'task-a', other: 'task-b' });
  send('ok2', 'overlapRunAfter', { kind: 'overlap', id: 'task-b', other: 'task-a' });
  send('no1', 'overlapIgnore', { kind: 'overlap', id: 'task-a', other: 'task-c' });
  send('no2', 'overlapIgnore', { kind: 'worker', id: 'worker-a' });
  send('no3', 'approve', { kind: 'overlap', id: 'task-a', other: 'task-b' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    actions.map((a) => [a.action, a.target.kind === 'overlap' ? [a.target.task.id, a.target.other] : a.target.kind]),
    [
      ['overlapIgnore', ['task-a', 'task-b']],
      ['overlapRunAfter', ['task-b', 'task-a']],
    ],
  );
  const refusals = Object.fromEntries(
    posted.flatMap((message) => (message.type === 'actionResult' && !message.ok ? [[message.requestId, message.message]] : [])),
  );
  assert.deepEqual(refusals, {
    no1: 'task-a no longer overlaps task-c',
    no2: 'overlapIgnore does not apply to worker worker-a',
    no3: 'approve does not apply to the pair task-a and task-b',
  });
  assert.equal(
    webviewMessageSchema.safeParse({
      type: 'action',
      requestId: 'x',
      folder: '/r',
      action: 'overlapIgnore',
      target: { kind: 'overlap', id: 'a', other: '../b' },
    }).success,
    false,
  );
  host.dispose();
});

test('Rebase When Merged is offered until it is the plan', () => {
  assert.deepEqual(overlapActions({ plan: null }), ['overlapRunAfter', 'overlapRebaseWhenMerged', 'overlapIgnore']);
  assert.deepEqual(overlapActions({ plan: 'rebase-when-merged' }), ['overlapRunAfter', 'overlapIgnore']);
});

test('an edge arcs over the tops of two cards of one row, and joins bottom to top across rows', () => {
  const card = (column: number, row: number) => ({ x: column * 312, y: row * 212, width: 300, height: 200 });
  assert.equal(edgePath(card(1, 0), card(0, 0)), 'M150 0C150 -22 462 -22 462 0');
  assert.equal(edgePath(card(0, 0), card(2, 0)), 'M150 0C150 -22 774 -22 774 0');
  assert.equal(edgePath(card(0, 1), card(1, 0)), 'M462 200C462 222 150 190 150 212');
});
