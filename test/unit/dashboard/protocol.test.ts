import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type HandlerMap,
  type WebviewMessage,
  dashboardSnapshotSchema,
  defaultViewState,
  dispatchMessage,
  hostMessageSchema,
  protocolVersion,
  viewStateSchema,
  webviewMessageSchema,
} from '../../../src/shared/protocol';
import { buildDashboardSnapshot } from '../../../src/extension/dashboard/snapshot';
import { makeStatus } from './fixtures';

const validWebviewMessages: Array<[string, unknown]> = [
  ['ready without a view', { type: 'ready', protocol: protocolVersion }],
  ['ready with a saved view', { type: 'ready', protocol: protocolVersion, view: { folder: '/repo', taskStatus: 'failed' } }],
  [
    'view with an activity filter',
    { type: 'view', view: { ...defaultViewState, activity: { worker: 'w-1', task: null, state: 'WORKING', limit: 400 } } },
  ],
  ['approve a worker', { type: 'action', requestId: 'r1-2', folder: '/repo', action: 'approve', target: { kind: 'worker', id: 'w-1' } }],
  [
    'request changes with a note',
    {
      type: 'action',
      requestId: 'r2',
      folder: '/repo',
      action: 'requestChanges',
      target: { kind: 'worker', id: 'w-1' },
      note: 'Please add tests',
    },
  ],
  ['retry a task', { type: 'action', requestId: 'r3', folder: '/repo', action: 'retry', target: { kind: 'task', id: 't-abc' } }],
  ['add a worker to the folder', { type: 'action', requestId: 'r4', folder: '/repo', action: 'addWorker', target: { kind: 'folder' } }],
  ['an error report', { type: 'error', message: 'boom' }],
];

const invalidWebviewMessages: Array<[string, unknown]> = [
  ['not an object', 'ready'],
  ['null', null],
  ['unknown type', { type: 'execute', command: 'rm -rf /' }],
  ['ready from another protocol version', { type: 'ready', protocol: protocolVersion + 1 }],
  [
    'unknown action',
    { type: 'action', requestId: 'r1', folder: '/repo', action: 'deleteEverything', target: { kind: 'worker', id: 'w-1' } },
  ],
  [
    'worker id with a path',
    { type: 'action', requestId: 'r1', folder: '/repo', action: 'approve', target: { kind: 'worker', id: '../etc' } },
  ],
  [
    'worker id with markup',
    { type: 'action', requestId: 'r1', folder: '/repo', action: 'approve', target: { kind: 'worker', id: '<img src=x>' } },
  ],
  ['missing target', { type: 'action', requestId: 'r1', folder: '/repo', action: 'approve' }],
  ['unknown target kind', { type: 'action', requestId: 'r1', folder: '/repo', action: 'approve', target: { kind: 'engine' } }],
  [
    'empty note',
    { type: 'action', requestId: 'r1', folder: '/repo', action: 'requestChanges', target: { kind: 'worker', id: 'w-1' }, note: '   ' },
  ],
  [
    'note too long',
    {
      type: 'action',
      requestId: 'r1',
      folder: '/repo',
      action: 'requestChanges',
      target: { kind: 'worker', id: 'w-1' },
      note: 'x'.repeat(10_001),
    },
  ],
  [
    'request id with spaces',
    { type: 'action', requestId: 'r 1', folder: '/repo', action: 'approve', target: { kind: 'worker', id: 'w-1' } },
  ],
  ['empty folder', { type: 'action', requestId: 'r1', folder: '', action: 'approve', target: { kind: 'worker', id: 'w-1' } }],
  ['negative page', { type: 'view', view: { workersPage: -1 } }],
  ['unknown task status tab', { type: 'view', view: { taskStatus: 'exploded' } }],
  ['activity limit beyond the cap', { type: 'view', view: { activity: { limit: 1_000_000 } } }],
  ['error report too long', { type: 'error', message: 'x'.repeat(2001) }],
];

for (const [name, message] of validWebviewMessages) {
  test(`webview message parses: ${name}`, () => {
    const parsed = webviewMessageSchema.safeParse(message);
    assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues));
  });
}

for (const [name, message] of invalidWebviewMessages) {
  test(`webview message is refused: ${name}`, () => {
    assert.equal(webviewMessageSchema.safeParse(message).success, false);
  });
}

test('a partial view state is completed with defaults', () => {
  const view = viewStateSchema.parse({ taskStatus: 'done' });
  assert.deepEqual(view, { ...defaultViewState, taskStatus: 'done' });
});

test('dispatch calls exactly the handler of the message type, and nothing for an invalid message', () => {
  const calls: string[] = [];
  const handlers: HandlerMap<WebviewMessage> = {
    ready: () => calls.push('ready'),
    view: () => calls.push('view'),
    action: (message) => calls.push(`action:${message.action}`),
    error: () => calls.push('error'),
  };
  assert.deepEqual(
    dispatchMessage(webviewMessageSchema, handlers, {
      type: 'action',
      requestId: 'r',
      folder: '/f',
      action: 'merge',
      target: { kind: 'worker', id: 'w' },
    }),
    { ok: true },
  );
  const refused = dispatchMessage(webviewMessageSchema, handlers, { type: 'action', action: 'merge' });
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.problem, /requestId|folder|target/);
  assert.deepEqual(calls, ['action:merge']);
});

test('a snapshot built by the host parses on the webview side, hostile titles included', () => {
  const status = makeStatus({ workers: 12, tasks: 120 });
  const hostile = '<img src=x onerror=alert(1)>';
  const tasks = status.tasks.map((task, index) =>
    index === 0 || task.id === status.workers[0]!.taskId ? { ...task, title: hostile } : task,
  );
  const snapshot = buildDashboardSnapshot({
    now: 1_700_000_000_000,
    folders: [{ root: '/repo', name: 'repo', ownerNote: undefined, restricted: false }],
    view: defaultViewState,
    selected: {
      info: { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false },
      status: { ...status, tasks },
      heartbeats: () => [1_699_999_990_000, 1_699_999_995_000],
      activity: undefined,
      liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
      heartbeatWindowMs: 300_000,
    },
  });
  const message = hostMessageSchema.safeParse({ type: 'snapshot', revision: 1, snapshot });
  assert.ok(message.success, message.success ? '' : JSON.stringify(message.error.issues.slice(0, 3)));
  assert.ok(JSON.stringify(message.data).includes(hostile), 'the title travels unchanged; the webview renders it as text');
});

test('host messages that do not match are refused by the webview', () => {
  assert.equal(hostMessageSchema.safeParse({ type: 'snapshot', revision: 1, snapshot: { generatedAt: 'yesterday' } }).success, false);
  assert.equal(hostMessageSchema.safeParse({ type: 'eval', code: 'alert(1)' }).success, false);
  assert.equal(dashboardSnapshotSchema.safeParse({ generatedAt: 1, folders: [], view: defaultViewState, folder: null }).success, true);
  assert.equal(hostMessageSchema.safeParse({ type: 'actionResult', requestId: 'r1', ok: 'yes' }).success, false);
});

test('agent signals travel to the webview, and a card with malformed ones is refused', () => {
  const status = makeStatus({ workers: 6, tasks: 30 });
  const waiting = status.workers.find((worker) => worker.state === 'WORKING')!;
  const workers = status.workers.map((worker) =>
    worker === waiting ? { ...worker, needsInput: { message: 'Allow Bash: git push?', at: 1_699_999_999_000 } } : worker,
  );
  const snapshot = buildDashboardSnapshot({
    now: 1_700_000_000_000,
    folders: [{ root: '/repo', name: 'repo', ownerNote: undefined, restricted: false }],
    view: defaultViewState,
    selected: {
      info: { root: '/repo', name: 'repo', ownerNote: undefined, restricted: false },
      status: { ...status, workers, usage: { inputTokens: 9, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.5 } },
      heartbeats: () => [],
      activity: undefined,
      liveness: { warnMs: 30_000, staleMs: 100_000, deadMs: 300_000 },
      heartbeatWindowMs: 300_000,
    },
  });
  const parsed = hostMessageSchema.safeParse({ type: 'snapshot', revision: 1, snapshot });
  assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3)));
  const card = parsed.data.type === 'snapshot' ? parsed.data.snapshot.folder!.workers.items.find((w) => w.id === waiting.id) : undefined;
  assert.equal(card?.needsInput?.message, 'Allow Bash: git push?');
  assert.equal(card?.activity?.text, 'Bash: npm test');
  assert.equal(parsed.data.type === 'snapshot' ? parsed.data.snapshot.folder!.stats.usage.costUsd : -1, 0.5);

  const broken = structuredClone(snapshot);
  broken.folder!.workers.items[0]!.usage = { inputTokens: -1, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
  assert.equal(hostMessageSchema.safeParse({ type: 'snapshot', revision: 2, snapshot: broken }).success, false);
  const noMessage = structuredClone(snapshot);
  (noMessage.folder!.workers.items[0] as { needsInput: unknown }).needsInput = { at: 1 };
  assert.equal(hostMessageSchema.safeParse({ type: 'snapshot', revision: 3, snapshot: noMessage }).success, false);
});
