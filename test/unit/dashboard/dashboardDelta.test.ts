/**
 * Dashboard deltas (issue 13): applying the delta between two snapshots to the first gives the
 * second, for random edits of a crew's state (worker rows, task statuses, pages, folders); a delta
 * for one heartbeat carries one card and nothing else, and is a small part of the snapshot.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { buildDashboardSnapshot } from '../../../src/extension/dashboard/snapshot';
import { applyDashboardDelta, dashboardDelta, isEmptyDelta } from '../../../src/shared/dashboardDelta';
import { type DashboardSnapshot, type ViewState, dashboardSnapshotSchema, defaultViewState } from '../../../src/shared/protocol';
import { makeStatus } from './fixtures';

const now = 1_700_000_000_000;
const info = { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false };

function build(
  status: StatusSnapshot,
  at: number,
  view: ViewState = defaultViewState,
  beats = new Map<string, number[]>(),
): DashboardSnapshot {
  return buildDashboardSnapshot({
    now: at,
    folders: [info],
    view,
    selected: {
      info,
      status,
      heartbeats: (id) => beats.get(id) ?? [],
      activity: undefined,
      liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
      heartbeatWindowMs: 300_000,
    },
  });
}

function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

test('applying the delta between two snapshots to the first gives the second, over random edits', () => {
  const next = random(42);
  let status = makeStatus({ workers: 90, tasks: 600, now });
  const beats = new Map<string, number[]>();
  let view: ViewState = defaultViewState;
  let at = now;
  let held = build(status, at, view, beats);
  const states = ['IDLE', 'WORKING', 'IN_REVIEW', 'FAILED'];
  const statuses = ['queued', 'running', 'done', 'failed'];
  for (let step = 0; step < 300; step++) {
    at += Math.floor(next() * 5_000);
    const edit = Math.floor(next() * 6);
    const w = Math.floor(next() * status.workers.length);
    const t = Math.floor(next() * status.tasks.length);
    if (edit === 0) beats.set(status.workers[w]!.id, [...(beats.get(status.workers[w]!.id) ?? []), at]);
    if (edit === 1)
      status = { ...status, workers: status.workers.map((row, i) => (i === w ? { ...row, state: states[step % states.length]! } : row)) };
    if (edit === 2)
      status = { ...status, tasks: status.tasks.map((row, i) => (i === t ? { ...row, status: statuses[step % statuses.length]! } : row)) };
    if (edit === 3)
      status = {
        ...status,
        workers: step % 2 ? status.workers.slice(1) : [...status.workers, { ...status.workers[0]!, id: `worker-x${step}` }],
      };
    if (edit === 4) view = { ...view, workersPage: Math.floor(next() * 2), taskStatus: next() < 0.5 ? null : 'done' };
    const after = build(status, at, view, beats);
    const delta = dashboardDelta(held, after);
    assert.ok(delta, `step ${step}: the same folder always has a delta`);
    const applied = applyDashboardDelta(held, delta);
    assert.deepEqual(applied, after, `step ${step}`);
    assert.ok(dashboardSnapshotSchema.safeParse(applied).success);
    held = after;
  }
});

test('one heartbeat: the delta carries that worker card only, a small part of the snapshot', () => {
  const status = makeStatus({ workers: 200, tasks: 10_000, now });
  const beats = new Map<string, number[]>();
  const before = build(status, now, defaultViewState, beats);
  const id = status.workers[0]!.id;
  beats.set(id, [now + 1_000]);
  const after = build(status, now + 1_000, defaultViewState, beats);
  const delta = dashboardDelta(before, after)!;
  assert.deepEqual(Object.keys(delta.folder), ['workers']);
  assert.deepEqual(
    delta.folder.workers?.changed.map((entry) => entry.item.id),
    [id],
  );
  assert.equal(delta.folder.workers?.keys, undefined, 'the page kept its workers');
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
  assert.ok(bytes(delta) * 20 < bytes(after), `delta ${bytes(delta)} bytes, snapshot ${bytes(after)}`);
  assert.ok(isEmptyDelta(dashboardDelta(after, { ...after, generatedAt: after.generatedAt + 5_000 })!), 'time alone changes nothing');
});

test('one task fails: what needs you gains one item, sent alone with the list of keys', () => {
  const status = makeStatus({ workers: 200, tasks: 10_000, now });
  const before = build(status, now);
  const index = status.tasks.findIndex((task) => task.status === 'queued' && !task.parentId);
  const failed = {
    ...status,
    tasks: status.tasks.map((task, i) => (i === index ? { ...task, status: 'failed', attempt: 3, maxAttempts: 3 } : task)),
  };
  const after = build(failed, now + 1_000);
  const delta = dashboardDelta(before, after)!;
  assert.deepEqual(applyDashboardDelta(before, delta), after);
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
  assert.ok(bytes(delta) * 5 < bytes(after), `delta ${bytes(delta)} bytes, snapshot ${bytes(after)}`);
  if (delta.folder.attention) assert.ok(delta.folder.attention.changed.length <= 1);
});

test('another folder or none: no delta, a full snapshot says it', () => {
  const a = build(makeStatus({ workers: 3, tasks: 10, now }), now);
  const b = { ...a, folder: { ...a.folder!, root: '/other' } };
  assert.equal(dashboardDelta(a, b), undefined);
  assert.equal(dashboardDelta(a, { ...a, folder: null }), undefined);
});
