import assert from 'node:assert/strict';
import { changesOf } from '../../../src/extension/statusModel';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { WorkerStatus } from '../../../src/engine/statusView';
import { actionsForWorker, inputAttentionActions } from '../../../src/extension/dashboard/actionPolicy';
import { DashboardHost, type ResolvedAction } from '../../../src/extension/dashboard/dashboardHost';
import { HeartbeatHistory } from '../../../src/extension/dashboard/heartbeatHistory';
import { type HostMessage, protocolVersion, webviewMessageSchema } from '../../../src/shared/protocol';
import { FakeSession } from './fakeSession';
import { makeStatus } from './fixtures';

const question = { message: 'Bash: rm -rf build', at: 1_700_000_000_000 };

test('a waiting worker is answered first: Allow and Deny lead its actions; nobody else gets them', () => {
  for (const worker of makeStatus({ workers: 10, tasks: 30 }).workers) {
    const plain = actionsForWorker(worker);
    assert.ok(!plain.includes('allow') && !plain.includes('deny'), worker.state);
    assert.deepEqual(actionsForWorker({ ...worker, needsInput: question }), ['allow', 'deny', ...plain], worker.state);
  }
  assert.deepEqual(inputAttentionActions, ['allow', 'deny', 'openTerminal', 'showLog']);
});

test('allow and deny parse as webview actions on a worker; a note or an unknown answer does not pass', () => {
  const action = (patch: Record<string, unknown>) => ({
    type: 'action',
    requestId: 'r1',
    folder: '/repo',
    target: { kind: 'worker', id: 'w-1' },
    ...patch,
  });
  assert.ok(webviewMessageSchema.safeParse(action({ action: 'allow' })).success);
  assert.ok(webviewMessageSchema.safeParse(action({ action: 'deny' })).success);
  for (const refused of ['allowAll', 'Allow', 'answer', 'yes']) {
    assert.equal(webviewMessageSchema.safeParse(action({ action: refused })).success, false, refused);
  }
});

function setup(status = makeStatus({ workers: 10, tasks: 30 })) {
  const session = new FakeSession(status);
  const posted: HostMessage[] = [];
  const ran: ResolvedAction[] = [];
  const host = new DashboardHost({
    sessions: () => [session],
    onDidChangeSessions: changesOf(session),
    heartbeats: new HeartbeatHistory(),
    post: (message) => {
      posted.push(message);
      return Promise.resolve(true);
    },
    runAction: (action) => {
      ran.push(action);
      return Promise.resolve({ ok: true });
    },
    liveness: () => ({ warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 }),
    log: () => undefined,
    activityIntervalMs: 10,
  });
  host.receive({ type: 'ready', protocol: protocolVersion });
  const results = () => posted.flatMap((message) => (message.type === 'actionResult' ? [[message.requestId, message.ok] as const] : []));
  return { session, host, ran, results };
}

test('the host runs an answer only for a worker that waits now', async () => {
  const status = makeStatus({ workers: 10, tasks: 30 });
  const working = status.workers.filter((worker) => worker.state === 'WORKING');
  const asking: WorkerStatus = { ...working[0]!, needsInput: question };
  const quiet = working[1]!;
  const { host, ran, results } = setup({ ...status, workers: status.workers.map((worker) => (worker.id === asking.id ? asking : worker)) });
  const send = (requestId: string, action: string, id: string, note?: string) =>
    host.receive({ type: 'action', requestId, folder: '/repo', action, target: { kind: 'worker', id }, ...(note ? { note } : {}) });
  send('allow-asking', 'allow', asking.id);
  send('deny-asking', 'deny', asking.id);
  send('allow-quiet', 'allow', quiet.id);
  send('deny-with-note', 'deny', asking.id, 'because');
  // Each action answers once, after the host has run or refused it: wait for the four answers.
  for (let turns = 0; results().length < 4; turns++) {
    assert.ok(turns < 10_000, `four answers, not ${results().length}`);
    await nextTurn();
  }
  assert.deepEqual(
    ran.map((action) => [action.action, action.target.kind === 'worker' ? action.target.worker.id : null]),
    [
      ['allow', asking.id],
      ['deny', asking.id],
    ],
  );
  assert.deepEqual(results().sort(), [
    ['allow-asking', true],
    ['allow-quiet', false],
    ['deny-asking', true],
    ['deny-with-note', false],
  ]);
  host.dispose();
});
