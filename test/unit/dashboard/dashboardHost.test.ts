import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DashboardHost, type ResolvedAction } from '../../../src/extension/dashboard/dashboardHost';
import { HeartbeatHistory } from '../../../src/extension/dashboard/heartbeatHistory';
import { ViewsThrottle } from '../../../src/extension/viewsThrottle';
import { applyDashboardDelta } from '../../../src/shared/dashboardDelta';
import { type DashboardSnapshot, type HostMessage, protocolVersion } from '../../../src/shared/protocol';
import { FakeSession } from './fakeSession';
import { ManualClock } from '../../support/manualClock';
import { makeStatus } from './fixtures';

/** Lets the host's promise chains (action replies, activity reads) finish; no time passes. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function setup(options: { intervalMs?: number } = {}) {
  const session = new FakeSession(makeStatus({ workers: 10, tasks: 30 }));
  const posted: HostMessage[] = [];
  const logged: string[] = [];
  const actions: ResolvedAction[] = [];
  const clock = new ManualClock();
  // The one throttle between the session and the views, as the registry runs it.
  const throttle = new ViewsThrottle(() => [session], options.intervalMs ?? 50, clock);
  session.onDidChange(() => throttle.changed());
  const host = new DashboardHost({
    sessions: () => [session],
    onDidChangeSessions: throttle.onDidChange,
    heartbeats: new HeartbeatHistory(),
    post: (message) => {
      posted.push(message);
      return Promise.resolve(true);
    },
    runAction: (action) => {
      actions.push(action);
      return Promise.resolve({ ok: true });
    },
    liveness: () => ({ warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 }),
    log: (line) => logged.push(line),
    activityIntervalMs: 10,
    clock,
  });
  /** What the webview was sent: a full snapshot, then deltas against it. */
  const snapshots = () => posted.filter((message) => message.type === 'snapshot' || message.type === 'delta');
  /** What the webview shows after applying every message, as the webview does. */
  const shown = () => {
    let held: DashboardSnapshot | undefined;
    for (const message of posted) {
      if (message.type === 'snapshot') held = message.snapshot;
      if (message.type === 'delta') held = applyDashboardDelta(held!, message.delta);
    }
    return held;
  };
  /** Moves the clock and lets what its timers started finish. */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await settle();
  };
  return { session, host, posted, logged, actions, snapshots, shown, clock, advance };
}

test('nothing is sent before ready; ready is answered with a full snapshot', async () => {
  const { session, host, snapshots, advance } = setup();
  session.change();
  await advance(80);
  assert.equal(snapshots().length, 0);
  host.receive({ type: 'ready', protocol: protocolVersion });
  await advance(0);
  assert.equal(snapshots().length, 1, 'ready is answered on the next turn of the clock');
  const last = snapshots().at(-1)!;
  assert.equal(last.type === 'snapshot' && last.snapshot.folder?.workers.total, 10);
  host.dispose();
});

test('invalid messages are dropped and logged, and nothing acts on them', async () => {
  const { host, posted, logged, actions, advance } = setup();
  host.receive({ type: 'ready', protocol: protocolVersion });
  await advance(0);
  await advance(80);
  const before = posted.length;
  for (const message of [
    null,
    'approve',
    { type: 'action', action: 'merge' },
    { type: 'run', command: 'rm' },
    { type: 'action', requestId: 'r1', folder: '/repo', action: 'merge', target: { kind: 'worker', id: '../../x' } },
  ]) {
    host.receive(message);
  }
  await advance(80);
  assert.equal(actions.length, 0);
  assert.equal(posted.length, before);
  assert.equal(logged.filter((line) => line.includes('dropped an invalid message')).length, 5);
  host.dispose();
});

test('a burst of 1,000 changes is coalesced into one delta; the next burst waits out the interval', async () => {
  const { session, host, snapshots, shown, advance } = setup({ intervalMs: 250 });
  host.receive({ type: 'ready', protocol: protocolVersion });
  await advance(0);
  await advance(300);
  assert.equal(snapshots().length, 2, 'the answer to ready, then one with the activity read');
  // Each change moves one worker's progress: a change the dashboard shows.
  const first = session.status.workers[0]!;
  const burst = (base: number) => {
    for (let i = 0; i < 1000; i++) {
      session.change({ ...session.status, workers: [{ ...first, progress: ((base + i) % 100) / 100 }, ...session.status.workers.slice(1)] });
    }
  };
  const before = snapshots().length;
  burst(0);
  assert.equal(snapshots().length, before, 'never synchronously');
  await advance(0);
  assert.equal(snapshots().length - before, 1, 'the first burst of a quiet period goes out on the next turn of the clock, once');
  assert.equal(snapshots().at(-1)!.type, 'delta');
  burst(1);
  await advance(249);
  assert.equal(snapshots().length - before, 1, 'nothing before 250 ms since the last change went out');
  await advance(1);
  await advance(600);
  assert.equal(snapshots().length - before, 2, `sent ${snapshots().length - before} messages for two bursts of 1,000 changes`);
  assert.equal(shown()!.folder!.workers.items[0]!.progress, session.status.workers[0]!.progress, 'the page shows the last change');
  host.dispose();
});

test('a change rebuilds only the cards it names; the others are the objects built before', async () => {
  const { session, host, shown, advance } = setup();
  // The session's first delta names every row (the views had none yet); it goes out before the page is ready.
  session.change();
  await advance(0);
  host.receive({ type: 'ready', protocol: protocolVersion });
  await advance(0);
  await advance(100);
  const built = host.buildSnapshot().folder!.workers.items;
  const [first, second] = session.status.workers;
  session.change({ ...session.status, workers: [{ ...first!, progress: 0.42 }, ...session.status.workers.slice(1)] });
  await advance(100);
  const after = host.buildSnapshot().folder!.workers.items;
  assert.notEqual(after[0], built[0], 'the changed worker is built again');
  assert.equal(after[0]!.progress, 0.42);
  assert.equal(after[1], built[1], `${second!.id} is the card built before`);
  assert.deepEqual(shown()!.folder!.workers.items, after, 'the page holds what a build gives');
  host.dispose();
});

test('an action that matches the state runs; one that does not is refused and never runs', async () => {
  const { session, host, posted, actions } = setup();
  host.receive({ type: 'ready', protocol: protocolVersion });
  const reviewer = session.status.workers.find((worker) => worker.state === 'IN_REVIEW')!;
  const idle = session.status.workers.find((worker) => worker.state === 'IDLE')!;
  host.receive({ type: 'action', requestId: 'a1', folder: '/repo', action: 'approve', target: { kind: 'worker', id: reviewer.id } });
  host.receive({ type: 'action', requestId: 'a2', folder: '/repo', action: 'merge', target: { kind: 'worker', id: idle.id } });
  host.receive({ type: 'action', requestId: 'a3', folder: '/elsewhere', action: 'approve', target: { kind: 'worker', id: reviewer.id } });
  host.receive({ type: 'action', requestId: 'a4', folder: '/repo', action: 'approve', target: { kind: 'folder' } });
  await settle();
  assert.deepEqual(
    actions.map((action) => [action.action, action.target.kind === 'worker' && action.target.worker.id]),
    [['approve', reviewer.id]],
  );
  const results = posted.filter((message) => message.type === 'actionResult');
  assert.deepEqual(results.map((message) => [message.requestId, message.ok]).sort(), [
    ['a1', true],
    ['a2', false],
    ['a3', false],
    ['a4', false],
  ]);
  host.dispose();
});

test('a hidden panel gets nothing until its page says ready again', async () => {
  const { session, host, snapshots, advance } = setup();
  host.receive({ type: 'ready', protocol: protocolVersion });
  await advance(0);
  await advance(80);
  host.setVisible(false);
  const before = snapshots().length;
  session.change();
  await advance(80);
  assert.equal(snapshots().length, before);
  host.setVisible(true);
  host.receive({ type: 'ready', protocol: protocolVersion, view: { taskStatus: 'done' } });
  await advance(0);
  assert.equal(snapshots().length, before + 1);
  const last = snapshots().at(-1)!;
  assert.equal(last.type === 'snapshot' && last.snapshot.view.taskStatus, 'done');
  host.dispose();
});

test('the activity is read through the session and arrives in a later snapshot', async () => {
  const { session, host, snapshots, shown, advance } = setup();
  session.transitions = [
    {
      seq: 1,
      timestamp: '2024-01-01T00:00:00.000Z',
      event_type: 'worker_state_transition',
      severity: 'info',
      entity_id: 'worker-000',
      from_state: 'IDLE',
      to_state: 'ASSIGNED',
      trigger: 'assign',
      actor: 'cli',
      reason: null,
      attempt: 1,
    },
  ];
  host.receive({ type: 'ready', protocol: protocolVersion });
  await advance(0);
  const first = snapshots()[0]!;
  assert.equal(first.type === 'snapshot' && first.snapshot.folder!.activity.loaded, false, 'the first snapshot does not wait for the read');
  await advance(50);
  assert.equal(snapshots().length, 2);
  const last = snapshots().at(-1)!;
  assert.ok(last.type === 'delta', 'after the first snapshot, what changed');
  assert.deepEqual(Object.keys(last.delta.folder).sort(), ['activity', 'stats']);
  assert.equal(shown()!.folder!.activity.loaded, true);
  assert.equal(shown()!.folder!.activity.items[0]!.to, 'ASSIGNED');
  assert.equal(shown()!.folder!.stats.throughputPerHour, 3);
  assert.ok(session.requests.includes('transitions') && session.requests.includes('metrics'));
  host.dispose();
});

test('heartbeat history records each new heartbeat and forgets what left the window', () => {
  const history = new HeartbeatHistory(60_000);
  const status = makeStatus({ workers: 1, tasks: 5 });
  const beat = (at: number) => ({ ...status, workers: status.workers.map((worker) => ({ ...worker, lastHeartbeatMs: at })) });
  history.observe('/repo', beat(1000), 1000);
  history.observe('/repo', beat(1000), 2000);
  history.observe('/repo', beat(6000), 6000);
  history.observe('/repo', beat(11_000), 11_000);
  assert.deepEqual(history.of('/repo', 'worker-000', 11_000), [1000, 6000, 11_000]);
  assert.deepEqual(history.of('/repo', 'worker-000', 65_000), [6000, 11_000]);
  history.retain(new Set());
  assert.deepEqual(history.of('/repo', 'worker-000', 65_000), []);
});
