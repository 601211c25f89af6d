/**
 * The handover protocol between a read-only window and the owner, on real files and the real owner
 * lock: a granted request ends with the lock free for the asker; a refusal comes back with its
 * reason and the lock held; an owner that does not listen (`foreman serve`, a frozen window) is
 * reported after the wait; a request left over from a window that gave up is never answered.
 * The two sides run in this one process; what the window decides (`decide`) is the test's.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { acquireOwnerLock, readOwner } from '../../../src/infra/db';
import {
  HandoverListener,
  type HandoverRequest,
  grantHandover,
  grantedElsewhereUntil,
  requestHandover,
} from '../../../src/extension/sessions/handover';
import { ManualClock } from '../../support/manualClock';

function foremanDir(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'foreman-handover-')), '.foreman');
}

function ownIt(dir: string) {
  const lock = acquireOwnerLock(dir, { role: 'vscode' });
  assert.ok(lock.ok, 'the test could not take the owner lock');
  return lock.value;
}

test('an owner that grants releases the lock, and the asker hears "granted" only then', async () => {
  const dir = foremanDir();
  const lock = ownIt(dir);
  const asked: HandoverRequest[] = [];
  const listener = new HandoverListener(
    dir,
    (request) => {
      asked.push(request);
      return Promise.resolve({ granted: true, reason: 'no window is attached' });
    },
    () => lock.release(),
    () => undefined,
  );
  try {
    const decision = await requestHandover(dir, { timeoutMs: 10_000 });
    assert.deepEqual(decision, { id: asked[0]?.id, granted: true, reason: 'no window is attached' });
    assert.equal(asked[0]?.pid, process.pid);
    assert.equal(readOwner(dir), undefined, 'the lock is free for the asker');
    assert.ok(acquireOwnerLock(dir, { role: 'vscode' }).ok, 'the asker can take it');
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.startsWith('handover')),
      [],
      'request and reply are cleaned up',
    );
  } finally {
    listener.dispose();
  }
});

test('an owner in use refuses with its reason and keeps the lock', async () => {
  const dir = foremanDir();
  const lock = ownIt(dir);
  let handedOver = 0;
  const listener = new HandoverListener(
    dir,
    () => Promise.resolve({ granted: false, reason: 'the window that owns it is open and in use' }),
    () => handedOver++,
    () => undefined,
  );
  try {
    const decision = await requestHandover(dir, { timeoutMs: 10_000 });
    assert.equal(decision.granted, false);
    assert.equal(decision.reason, 'the window that owns it is open and in use');
    assert.equal(handedOver, 0);
    assert.equal(readOwner(dir)?.pid, process.pid);
  } finally {
    listener.dispose();
    lock.release();
  }
});

test('an owner that does not listen is reported after the wait, naming it', async () => {
  const dir = foremanDir();
  const lock = acquireOwnerLock(dir, { role: 'serve' });
  assert.ok(lock.ok);
  try {
    // The wait runs on the test's clock: the second it lasts passes at once.
    const clock = new ManualClock();
    const asking = requestHandover(dir, { timeoutMs: 1_000, clock });
    clock.advance(999);
    assert.ok(fs.existsSync(path.join(dir, 'handover.request')), 'still waiting, its request out');
    clock.advance(1);
    const decision = await asking;
    assert.equal(decision.granted, false);
    assert.equal(clock.pendingTimers(), 0, 'its timers end with the wait');
    assert.match(decision.reason, new RegExp(`the owner \\(pid ${process.pid}, serve\\) did not answer within 1 s`));
    assert.ok(!fs.existsSync(path.join(dir, 'handover.request')), 'the unanswered request is withdrawn');
  } finally {
    lock.value.release();
  }
});

test('a request older than its lifetime is left unanswered; a fresh one is answered once', async () => {
  const dir = foremanDir();
  const lock = ownIt(dir);
  const asked: string[] = [];
  const listener = new HandoverListener(
    dir,
    (request) => {
      asked.push(request.id);
      return Promise.resolve({ granted: false, reason: 'no' });
    },
    () => undefined,
    () => undefined,
  );
  try {
    const old = { id: '6f1f4a52-4c1e-4d7c-9a57-0c6c1b0f9b11', pid: 1, host: os.hostname(), at: Date.now() - 60_000 };
    fs.writeFileSync(path.join(dir, 'handover.request'), JSON.stringify(old));
    // The listener sees the old request before the fresh one (events come in order); once the fresh
    // one is answered, an answer to the old one would have been given already.
    const decision = await requestHandover(dir, { timeoutMs: 10_000 });
    assert.equal(decision.reason, 'no');
    assert.equal(asked.length, 1);
    assert.notEqual(asked[0], old.id);
  } finally {
    listener.dispose();
    lock.release();
  }
});

test('a granted handover names the window it goes to: every other window leaves it the lock for a while', () => {
  const dir = foremanDir();
  fs.mkdirSync(dir, { recursive: true });
  assert.equal(grantedElsewhereUntil(dir), 0, 'no grant: nobody waits');
  const before = Date.now();
  grantHandover(dir, { pid: process.pid + 1, host: os.hostname() });
  const until = grantedElsewhereUntil(dir);
  assert.ok(until > before, 'another window was granted the lock: this one waits');
  grantHandover(dir, { pid: process.pid, host: os.hostname() });
  assert.equal(grantedElsewhereUntil(dir), 0, 'the window it was granted to takes it at once');
  fs.writeFileSync(path.join(dir, 'handover.granted'), '{"pid": "not a pid"}');
  assert.equal(grantedElsewhereUntil(dir), 0, 'a grant that does not parse holds nobody back');
});
