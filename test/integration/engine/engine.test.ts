import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import type { StatusSnapshot } from '../../../src/engine/statusView';
import { readAckFile } from '../../../src/infra/db/ackFile';
import { scanJournal } from '../../../src/infra/db/journalFormat';
import { type EngineHarness, openEngine, testStore } from '../../support/engineHarness';

let harness: EngineHarness;
const harnesses: EngineHarness[] = [];

beforeEach(async () => {
  harness = await openEngine();
  harnesses.push(harness);
});
after(() => harnesses.forEach((h) => h.close()));

const status = (): StatusSnapshot => harness.query('status', {});
const worker = (id: string) => status().workers.find((w) => w.id === id)!;
const task = (id: string) => status().tasks.find((t) => t.id === id)!;

describe('engine: the worker path', () => {
  it('claims, works, reviews and merges with audit rows for every step', async () => {
    await harness.value('worker.add', { id: 'w1' });
    await harness.value('task.add', { title: 'Fix login', id: 'login' });
    const claimed = await harness.value<{ id: string; attempt: number; branch: string }>('claim', { worker: 'w1' });
    assert.deepEqual(claimed, { id: 'login', attempt: 1, branch: 'w1/login' });
    await harness.value('start', { worker: 'w1' });
    await harness.value('heartbeat', { worker: 'w1', progress: 0.5, attempt: 1 });
    await harness.value('submit', { worker: 'w1', summary: 'done', attempt: 1 });
    await harness.value('request-changes', { worker: 'w1', note: 'add a test' });
    assert.equal(worker('w1').note, 'add a test');
    await harness.value('submit', { worker: 'w1' });
    await harness.value('approve', { worker: 'w1' });
    await harness.value('merge', { worker: 'w1' });
    assert.equal(task('login').status, 'done');
    assert.equal(worker('w1').state, 'IDLE');
    assert.equal(worker('w1').taskId, null);
    const trail = harness.query('transitions', { limit: 100 }).map((t) => `${t.entity_id} ${t.from_state}>${t.to_state} ${t.trigger}`);
    assert.deepEqual(trail, [
      'login idle>queued enqueue',
      'login queued>running claim',
      'w1 IDLE>ASSIGNED assign',
      'w1 ASSIGNED>WORKING start',
      'w1 WORKING>IN_REVIEW submit',
      'w1 IN_REVIEW>WORKING requestChanges',
      'w1 WORKING>IN_REVIEW submit',
      'w1 IN_REVIEW>APPROVED approve',
      'w1 APPROVED>COMPLETED merge',
      'login running>done complete',
      'w1 COMPLETED>IDLE recycle',
    ]);
  });

  it('refuses illegal moves with from, to and why, and changes nothing', async () => {
    await harness.value('worker.add', { id: 'w1' });
    const before = (await harness.value<unknown[]>('transitions', { limit: 100 })).length;
    const refused = await harness.run('approve', { worker: 'w1' });
    assert.ok(!refused.ok);
    assert.equal(refused.kind, 'refused');
    assert.match(refused.message, /'w1': A worker in IDLE cannot approve/);
    assert.equal((await harness.value<unknown[]>('transitions', { limit: 100 })).length, before);
    const metrics = await harness.value<{ rejected: { total: number; byCode: Record<string, number> } }>('metrics', {});
    assert.deepEqual(metrics.rejected, { total: 1, byCode: { illegalTransition: 1 } });
  });

  it('fences a late heartbeat or submit from an older attempt', async () => {
    await harness.value('worker.add', { id: 'w1' });
    await harness.value('worker.add', { id: 'w2' });
    await harness.value('task.add', { title: 'T', id: 't1' });
    await harness.value('claim', { worker: 'w1' });
    await harness.value('start', { worker: 'w1' });
    await harness.value('fail', { worker: 'w1', reason: 'boom', attempt: 1 });
    assert.equal(task('t1').status, 'queued');
    harness.clock.advance(60_000);
    await harness.value('assign', { worker: 'w1', task: 't1' });
    const late = await harness.run('heartbeat', { worker: 'w1', attempt: 1 });
    assert.ok(!late.ok && late.code === 'staleAttempt', JSON.stringify(late));
    assert.match(late.message, /comes from attempt 1, an earlier run of the task; attempt 2 runs now/);
    const lateSubmit = await harness.run('submit', { worker: 'w1', attempt: 1 });
    assert.ok(!lateSubmit.ok && lateSubmit.code === 'staleAttempt');
    assert.equal(worker('w1').state, 'ASSIGNED');
    assert.equal((await harness.value<{ rejected: { byCode: Record<string, number> } }>('metrics', {})).rejected.byCode['staleAttempt'], 2);
  });

  it('applies a request id once and answers the repeat with the first result', async () => {
    const first = await harness.run('task.add', { title: 'Once' }, 'req-1');
    const second = await harness.run('task.add', { title: 'Once' }, 'req-1');
    assert.deepEqual(second, first);
    assert.equal(status().tasks.length, 1);
    const reused = await harness.run('worker.add', { id: 'w9' }, 'req-1');
    assert.ok(!reused.ok && reused.code === 'requestIdReused');
    assert.equal((await harness.value<{ idempotency: { hits: number } }>('metrics', {})).idempotency.hits, 1);
  });
});

describe('engine: retries and backoff', () => {
  it('requeues a failed attempt after a backoff, then fails for good when attempts run out', async () => {
    await harness.value('worker.add', { id: 'w1' });
    await harness.value('task.add', { title: 'Flaky', id: 'flaky', maxAttempts: 2 });
    await harness.value('claim', { worker: 'w1' });
    await harness.value('fail', { worker: 'w1', reason: 'tests red' });
    assert.equal(task('flaky').status, 'queued');
    assert.equal(worker('w1').state, 'IDLE');
    assert.equal(await harness.value('claim', { worker: 'w1' }), null, 'not due before the backoff');
    harness.clock.advance(5_000);
    assert.equal((await harness.value<{ attempt: number }>('claim', { worker: 'w1' })).attempt, 2);
    await harness.value('fail', { worker: 'w1', reason: 'still red' });
    assert.equal(task('flaky').status, 'failed');
    assert.equal(worker('w1').state, 'FAILED');
    assert.equal(worker('w1').lastError, 'still red');
    await harness.value('retry', { task: 'flaky' });
    assert.equal(task('flaky').status, 'queued');
    assert.equal(worker('w1').state, 'IDLE');
  });

  it('a final failure fails the task for good with attempts left; retry then runs it again', async () => {
    await harness.value('worker.add', { id: 'w1' });
    await harness.value('task.add', { title: 'Misconfigured', id: 'misconf', maxAttempts: 3 });
    await harness.value('claim', { worker: 'w1' });
    await harness.value('fail', { worker: 'w1', reason: 'no such agent profile', final: true });
    assert.equal(task('misconf').status, 'failed');
    assert.equal(task('misconf').attempt, 1);
    assert.equal(worker('w1').state, 'FAILED');
    await harness.value('retry', { task: 'misconf' });
    assert.equal(task('misconf').status, 'queued');
    assert.equal((await harness.value<{ attempt: number }>('claim', { worker: 'w1' })).attempt, 2);
  });
});

describe('engine: chains', () => {
  const chain = () =>
    harness.value<{ parent: { id: string }; children: Array<{ id: string; blocked_by_task_id: string | null }> }>('chain.add', {
      name: 'Release v2',
      steps: [{ title: 'one' }, { title: 'two' }, { title: 'three' }],
    });
  const finish = async (workerId: string) => {
    await harness.value('start', { worker: workerId });
    await harness.value('submit', { worker: workerId });
    await harness.value('approve', { worker: workerId });
    await harness.value('merge', { worker: workerId });
  };

  it('runs children in order, unblocking each successor, then completes the parent', async () => {
    await harness.value('worker.add', { id: 'w1' });
    const { parent, children } = await chain();
    assert.equal(parent.id, 'release-v2');
    assert.deepEqual(
      children.map((c) => [c.id, c.blocked_by_task_id]),
      [
        ['release-v2-1', null],
        ['release-v2-2', 'release-v2-1'],
        ['release-v2-3', 'release-v2-2'],
      ],
    );
    assert.equal(task('release-v2').status, 'running');
    for (const child of children) {
      assert.equal((await harness.value<{ id: string }>('claim', { worker: 'w1' })).id, child.id);
      await finish('w1');
    }
    assert.equal(task('release-v2').status, 'done');
  });

  it('fails closed: a failed child never unblocks its successor and fails the parent', async () => {
    await harness.value('worker.add', { id: 'w1', maxAttempts: 1 });
    await chain();
    await harness.value('claim', { worker: 'w1' });
    await harness.value('fail', { worker: 'w1', reason: 'broken' });
    assert.equal(task('release-v2-1').status, 'failed');
    assert.equal(task('release-v2-2').blockedBy, 'release-v2-1');
    assert.equal(task('release-v2').status, 'failed');
    // The parent says which step stopped it, by its title (as a person wrote it) and its id.
    const child = task('release-v2-1');
    assert.equal(task('release-v2').lastError, `chain stopped: "${child.title}" (release-v2-1) failed`);
    await harness.value('reset', { worker: 'w1' });
    assert.equal(await harness.value('claim', { worker: 'w1' }), null);
    const assign = await harness.run('assign', { worker: 'w1', task: 'release-v2-2' });
    assert.ok(!assign.ok && assign.code === 'blocked' && /blocked by 'release-v2-1'/.test(assign.message));
    await harness.value('retry', { task: 'release-v2-1' });
    assert.equal(task('release-v2').status, 'running', 'retrying the child resumes the chain');
  });

  it('plans a chain step by step and refuses to finalize an empty plan', async () => {
    await harness.value('task.add', { title: 'Epic', id: 'epic', manual: true });
    await harness.value('plan.start', { parent: 'epic' });
    const empty = await harness.run('plan.finalize', { parent: 'epic' });
    assert.ok(!empty.ok && empty.kind === 'invalid');
    await harness.value('plan.add', { parent: 'epic', title: 'a' });
    await harness.value('plan.add', { parent: 'epic', title: 'b' });
    await harness.value('plan.finalize', { parent: 'epic' });
    assert.deepEqual(
      status()
        .tasks.filter((t) => t.parentId === 'epic')
        .map((t) => [t.id, t.status, t.blockedBy]),
      [
        ['epic-1', 'queued', null],
        ['epic-2', 'queued', 'epic-1'],
      ],
    );
  });
});

describe('engine: liveness', () => {
  /** The waker re-arms its timers on the next turn of the event loop after a commit. */
  const settle = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  const advance = async (ms: number) => {
    await settle();
    harness.clock.advance(ms);
    await settle();
  };

  it('moves a silent worker to STALE with a reason, revives it on a heartbeat, and fails it when dead', async () => {
    await harness.value('worker.add', { id: 'w1' });
    await harness.value('task.add', { title: 'T', id: 't1', maxAttempts: 1 });
    await harness.value('claim', { worker: 'w1' });
    await harness.value('start', { worker: 'w1' });
    await harness.value('heartbeat', { worker: 'w1' });
    harness.engine.startBackground();
    await advance(40_000);
    assert.equal(worker('w1').liveness, 'WARN');
    assert.equal(worker('w1').livenessReason, 'no heartbeat for 40s');
    await advance(60_010);
    assert.equal(worker('w1').state, 'STALE');
    assert.match(worker('w1').lastError ?? '', /^no heartbeat for 1m40s/);
    await harness.value('heartbeat', { worker: 'w1' });
    assert.equal(worker('w1').state, 'WORKING');
    assert.equal(worker('w1').lastError, null, 'a revived worker carries no stale verdict');
    await advance(100_010);
    assert.equal(worker('w1').state, 'STALE');
    await advance(200_010);
    assert.equal(worker('w1').state, 'FAILED');
    assert.match(worker('w1').lastError ?? '', /^dead: no heartbeat for 5m00s/);
    assert.equal(task('t1').status, 'failed');
    assert.equal(harness.clock.pendingTimers(), 0, 'nothing left to wait for: no timer, no polling');
  });

  it('keeps a beating worker alive, leaves one that waits for a person, and watches it again once the wait ends', async () => {
    await harness.value('worker.add', { id: 'w1' });
    await harness.value('task.add', { title: 'T', id: 't1' });
    await harness.value('claim', { worker: 'w1' });
    await harness.value('start', { worker: 'w1' });
    harness.engine.startBackground();
    // Plain beats leave the waker's earlier deadline in place; each time it comes, the worker is alive.
    for (let beat = 0; beat < 10; beat++) {
      await advance(30_000);
      await harness.value('heartbeat', { worker: 'w1' });
    }
    assert.equal(worker('w1').state, 'WORKING');
    await harness.value('heartbeat', { worker: 'w1', needsInput: 'permission to run Bash: npm test' });
    await advance(400_000);
    assert.equal(worker('w1').state, 'WORKING', 'waiting for a person is not silence');
    assert.match(worker('w1').livenessReason ?? '', /^waiting for you/);
    // The agent acts again: the wait is over, and its silence from here on counts.
    await harness.value('heartbeat', { worker: 'w1', activity: 'Bash: npm test' });
    await advance(100_010);
    assert.equal(worker('w1').state, 'STALE');
  });

  it(
    'fsyncs a heartbeat only when it revives a STALE worker (sql.js: the acknowledged mark)',
    { skip: testStore !== 'sqljs' },
    async () => {
      const foremanDir = path.join(harness.dir, '.foreman');
      /** The last journalled seq, and the mark of what was fsync'd and acknowledged. */
      const marks = () => {
        const records = scanJournal(fs.readFileSync(path.join(foremanDir, 'foreman.journal'))).records;
        const ack = readAckFile(foremanDir);
        return { last: records.at(-1)?.seq, acked: ack.kind === 'seq' ? ack.seq : undefined };
      };
      await harness.value('worker.add', { id: 'w1' });
      await harness.value('task.add', { title: 'T', id: 't1' });
      await harness.value('claim', { worker: 'w1' });
      await harness.value('start', { worker: 'w1' });
      const started = marks();
      assert.equal(started.acked, started.last);
      await harness.value('heartbeat', { worker: 'w1' });
      assert.deepEqual(marks(), { last: (started.last ?? 0) + 1, acked: started.last }, 'a plain heartbeat is written, not fsync’d');
      harness.clock.advance(150_000);
      harness.engine.startBackground();
      assert.equal(worker('w1').state, 'STALE');
      await harness.value('heartbeat', { worker: 'w1' });
      assert.equal(worker('w1').state, 'WORKING');
      const revived = marks();
      assert.equal(revived.acked, revived.last, 'the heartbeat that moved the worker back is fsync’d');
    },
  );

  it('finds silent workers when an owner starts', async () => {
    await harness.value('worker.add', { id: 'w1' });
    await harness.value('task.add', { title: 'T', id: 't1' });
    await harness.value('claim', { worker: 'w1' });
    await harness.value('start', { worker: 'w1' });
    harness.clock.advance(150_000);
    harness.engine.startBackground();
    assert.equal(worker('w1').state, 'STALE');
    assert.match(worker('w1').lastError ?? '', /checked at owner start/);
  });
});

describe('engine: dispatcher and waker', () => {
  it('hands queued work to idle workers on its own, within the concurrency limit', async () => {
    harness.close();
    harness = await openEngine({ concurrency: 2 });
    harnesses.push(harness);
    for (const id of ['w1', 'w2', 'w3']) await harness.value('worker.add', { id });
    harness.engine.startBackground();
    for (let i = 1; i <= 4; i++) await harness.value('task.add', { title: `task ${i}`, id: `t${i}` });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      status().workers.map((w) => [w.id, w.state, w.taskId]),
      [
        ['w1', 'ASSIGNED', 't1'],
        ['w2', 'ASSIGNED', 't2'],
        ['w3', 'IDLE', null],
      ],
    );
  });

  it('prefers the worker that had the task before', async () => {
    for (const id of ['w1', 'w2']) await harness.value('worker.add', { id });
    await harness.value('task.add', { title: 'T', id: 't1' });
    await harness.value('assign', { worker: 'w2', task: 't1' });
    await harness.value('fail', { worker: 'w2', reason: 'flake' });
    harness.clock.advance(5_000);
    const assigned = await harness.value<Array<{ worker: string }>>('dispatch', {});
    assert.deepEqual(
      assigned.map((a) => a.worker),
      ['w2'],
    );
  });
});

describe('engine: message bus', () => {
  it('delivers at least once: poll keeps the cursor, ack moves it forward only', async () => {
    const sent = await harness.value<{ seq: number; id: string }>('send', {
      from: 'lead',
      to: 'w1',
      type: 'note',
      payload: { a: 1 },
      id: '0b7c8a2e-1f1a-4c5e-9a7b-3d2e1f0a9b8c',
    });
    const again = await harness.value<{ seq: number; duplicate: boolean }>('send', {
      from: 'lead',
      to: 'w1',
      type: 'note',
      payload: { a: 1 },
      id: '0b7c8a2e-1f1a-4c5e-9a7b-3d2e1f0a9b8c',
    });
    assert.equal(again.seq, sent.seq);
    assert.equal(again.duplicate, true);
    await harness.value('send', { from: 'lead', type: 'broadcast', payload: 'all' });
    const polled = await harness.value<{ messages: Array<{ seq: number; type: string; payload: unknown }> }>('poll', { agent: 'w1' });
    assert.deepEqual(
      polled.messages.map((m) => [m.type, m.payload]),
      [
        ['note', { a: 1 }],
        ['broadcast', 'all'],
      ],
    );
    assert.equal(
      (await harness.value<{ messages: unknown[] }>('poll', { agent: 'w1' })).messages.length,
      2,
      'poll does not move the cursor',
    );
    await harness.value('ack', { agent: 'w1', seq: polled.messages[1]!.seq });
    assert.deepEqual(await harness.value('ack', { agent: 'w1', seq: polled.messages[0]!.seq }), {
      cursor: polled.messages[1]!.seq,
      moved: false,
    });
    assert.equal((await harness.value<{ messages: unknown[] }>('poll', { agent: 'w1' })).messages.length, 0);
  });

  it('keeps payloads over 4 KiB in blobs and refuses oversized ones', async () => {
    const big = 'x'.repeat(10_000);
    await harness.value('send', { from: 'lead', to: 'w1', type: 'big', payload: big });
    assert.equal((await harness.value<{ messages: Array<{ payload: unknown }> }>('poll', { agent: 'w1' })).messages[0]!.payload, big);
    assert.equal(harness.blobCount(), 1);
    const huge = await harness.run('send', { from: 'lead', type: 'huge', payload: 'y'.repeat(2 * 1024 * 1024) });
    assert.ok(!huge.ok && huge.kind === 'invalid' && /payload/.test(huge.message));
  });

  it('publishes every transition as a state_change broadcast', async () => {
    await harness.value('worker.add', { id: 'w1' });
    await harness.value('task.add', { title: 'T', id: 't1' });
    const polled = await harness.value<{ messages: Array<{ type: string; payload: { id: string; to: string } }> }>('poll', {
      agent: 'observer',
    });
    assert.deepEqual(
      polled.messages.map((m) => [m.type, m.payload.id, m.payload.to]),
      [['state_change', 't1', 'queued']],
    );
  });

  it('writes one state_change per transition of a claim and a fail, in their order; a busy or unknown worker’s claim writes nothing', async () => {
    await harness.value('worker.add', { id: 'w1' });
    for (const id of ['t1', 't2']) await harness.value('task.add', { title: id, id });
    await harness.value('claim', { worker: 'w1' });
    const busy = await harness.run('claim', { worker: 'w1' });
    assert.ok(!busy.ok && busy.code === 'workerBusy', JSON.stringify(busy));
    const nobody = await harness.run('claim', { worker: 'nobody' });
    assert.ok(!nobody.ok && nobody.code === 'workerNotFound', JSON.stringify(nobody));
    assert.deepEqual([task('t2').status, worker('w1').taskId], ['queued', 't1']);
    await harness.value('fail', { worker: 'w1', reason: 'flake' });
    const read = harness.store.read((reader) => ({
      transitions: reader.all<{ entity_type: string; entity_id: string; from_state: string; to_state: string; trigger: string }>(
        'SELECT entity_type, entity_id, from_state, to_state, trigger FROM transitions ORDER BY seq',
      ),
      messages: reader.all<{ id: string; payload: string }>("SELECT id, payload FROM messages WHERE type = 'state_change' ORDER BY seq"),
    }));
    const fromTransitions = read.transitions.map((t) => ({
      entity: t.entity_type,
      id: t.entity_id,
      from: t.from_state,
      to: t.to_state,
      trigger: t.trigger,
    }));
    assert.deepEqual(
      read.messages.map((m) => JSON.parse(m.payload) as unknown),
      fromTransitions,
    );
    assert.deepEqual(
      fromTransitions.slice(2).map((t) => `${t.id} ${t.from}→${t.to}`),
      ['t1 queued→running', 'w1 IDLE→ASSIGNED', 'w1 ASSIGNED→FAILED', 't1 running→failed', 't1 failed→queued', 'w1 FAILED→IDLE'],
    );
    assert.equal(new Set(read.messages.map((m) => m.id)).size, read.messages.length);
    assert.deepEqual([worker('w1').state, task('t1').status], ['IDLE', 'queued']);
  });
});
