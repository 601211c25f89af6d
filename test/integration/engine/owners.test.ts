/**
 * Owners sharing one store (issue 14), on the test clock and on either store (FOREMAN_TEST_STORE):
 * an owner hands work only to its host's workers (and to workers of any host); when an owner stops
 * renewing its lease, the live owners take its workers' tasks back once between them, under a new
 * attempt, and a late report from the old attempt is refused. Across processes and machines on a
 * real server: test/integration/pg/owners.test.ts.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { WorkerState } from '../../../src/core/workerMachine';
import type { OwnerIdentity } from '../../../src/engine/ports';
import * as q from '../../../src/engine/queries';
import { type EngineSettings } from '../../../src/engine/settings';
import { type EngineHarness, openEngine } from '../../support/engineHarness';
import { type OwnerEngine, openOwnerEngine, ownerTestLeaseMs, ownerTestSettings, settle } from '../../support/engineOwner';

const harnesses: EngineHarness[] = [];
after(() => harnesses.forEach((h) => h.close()));

const leaseMs = ownerTestLeaseMs;
const settings = ownerTestSettings;

/** Another owner's engine on the harness's store and clock (each owner has its own; they share the rows). */
function owner(h: EngineHarness, identity: OwnerIdentity, overrides: Partial<EngineSettings> = {}): OwnerEngine {
  return openOwnerEngine({ dir: h.dir, store: h.store, clock: h.clock, settings: { ...settings, ...overrides }, identity });
}

describe('engine: owners sharing a store', () => {
  it("hands work only to its own host's workers and takes a silent owner's work back once", async () => {
    const h = await openEngine(settings);
    harnesses.push(h);
    const a = owner(h, { id: 'owner-a', host: 'host-a' });
    const b = owner(h, { id: 'owner-b', host: 'host-b' });
    const c = owner(h, { id: 'owner-c', host: 'host-c' });
    assert.equal((await a.run('worker.add', { id: 'ada' })).ok, true);
    assert.equal((await b.run('worker.add', { id: 'bob' })).ok, true);
    assert.equal((await c.run('worker.add', { id: 'any', host: 'host-a' })).ok, true, '--host puts a worker on another machine');
    const workers = () => h.store.read((reader) => q.listWorkers(reader));
    assert.deepEqual(
      workers().map((w) => [w.id, w.host]),
      [
        ['ada', 'host-a'],
        ['any', 'host-a'],
        ['bob', 'host-b'],
      ],
    );
    await h.value('task.add', { id: 't1', title: 'first' });

    // B runs first: the only task is there, but A's workers are not B's to launch.
    b.startBackground();
    c.startBackground();
    await settle();
    assert.equal(workers().find((w) => w.id === 'bob')?.task_id, 't1');
    assert.ok(
      workers()
        .filter((w) => w.host === 'host-a')
        .every((w) => w.state === WorkerState.Idle),
    );

    a.startBackground();
    await h.value('task.add', { id: 't2', title: 'second' });
    await settle();
    const ada = workers().find((w) => w.task_id === 't2');
    assert.ok(ada && ada.host === 'host-a' && ada.owner_id === 'owner-a', 'A took t2 for a worker of its host');
    assert.equal(ada.state, WorkerState.Assigned);

    // A goes silent (its process gone): nothing renews its lease. B and C renew theirs and, once
    // A's ran out, take its work back between them: once.
    a.dispose();
    // A one-shot `foreman claim` on A's machine (an engine with the host's identity and no lease):
    // its work hangs on no lease, so it is the host's owners' to take back.
    const oneShot = owner(h, { id: 'cli-1', host: 'host-a' });
    await h.value('task.add', { id: 't3', title: 'third' });
    const claimed = await oneShot.run('claim', { worker: 'any' });
    assert.deepEqual(claimed.ok && [claimed.value?.id, claimed.value?.attempt], ['t3', 1]);
    assert.equal(workers().find((w) => w.id === 'any')?.owner_id, null);
    oneShot.dispose();
    h.clock.advance(leaseMs / 3);
    await settle();
    assert.equal(workers().find((w) => w.id === ada.id)?.state, WorkerState.Assigned, 'not before the lease ran out');
    h.clock.advance(leaseMs);
    await settle();
    const after = workers();
    const let_go = after.find((w) => w.id === ada.id);
    assert.equal(let_go?.state, WorkerState.Idle);
    assert.match(let_go?.last_error ?? '', /owner owner-a on host-a stopped renewing its lease/);
    const ends = h.query('transitions', { limit: 1000 }).filter((t) => t.entity_id === ada.id && /stopped renewing/.test(t.reason ?? ''));
    assert.equal(ends.length, 1, 'two live owners took it back once');
    const anyEnds = h.query('transitions', { limit: 1000 }).filter((t) => t.entity_id === 'any' && /stopped renewing/.test(t.reason ?? ''));
    assert.equal(anyEnds.length, 1, "the one-shot claim on A's machine was taken back with A's own work");
    const t2 = h.store.read((reader) => q.findTask(reader, 't2'));
    assert.deepEqual([t2?.status, t2?.attempt], ['queued', 1], 'queued again; its next claim is attempt 2');
    assert.ok(
      after.filter((w) => w.host === 'host-a').every((w) => w.state === WorkerState.Idle),
      "A's workers are not relaunched on another machine",
    );

    // The late report of A's attempt is refused by the attempt fencing.
    const late = await b.run('submit', { worker: ada.id, attempt: 1, summary: 'late' });
    assert.equal(!late.ok && late.code, 'staleAttempt');

    // Bob finishes t1 (freed by cancel here) and B hands it t2, attempt 2.
    assert.equal((await b.run('cancel', { target: 'bob' })).ok, true);
    await settle();
    const bob = workers().find((w) => w.id === 'bob');
    assert.deepEqual([bob?.task_id, bob?.attempt, bob?.owner_id], ['t2', 2, 'owner-b']);
    b.dispose();
    c.dispose();
  });

  it("work one owner gives another machine's worker survives the giver's death", async () => {
    const h = await openEngine(settings);
    harnesses.push(h);
    const a = owner(h, { id: 'owner-a', host: 'host-a' });
    const b = owner(h, { id: 'owner-b', host: 'host-b' });
    assert.equal((await a.run('worker.add', { id: 'ada' })).ok, true);
    a.startBackground();
    b.startBackground();
    // B assigns by hand, before A's dispatcher runs: the work is ada's host's (A's), not B's.
    await h.value('task.add', { id: 't1', title: 'by hand' });
    const assigned = await b.run('assign', { worker: 'ada', task: 't1' });
    assert.equal(assigned.ok, true);
    assert.equal(h.store.read((reader) => q.findWorker(reader, 'ada'))?.owner_id, null);
    b.dispose();
    h.clock.advance(2 * leaseMs);
    await settle();
    const ada = h.store.read((reader) => q.findWorker(reader, 'ada'));
    assert.deepEqual([ada?.state, ada?.task_id], [WorkerState.Assigned, 't1'], 'B died; ada (on A’s live machine) keeps its task');
    assert.notEqual(h.store.read((reader) => q.findOwner(reader, 'owner-b'))?.released_at, null, "B's lease was seen to run out");
    a.dispose();
  });

  it("another owner's change reschedules this owner's liveness monitor for the workers it names", async () => {
    const liveness = { warnMs: 10_000, staleMs: 20_000, deadMs: 600_000 };
    const h = await openEngine({ ...settings, liveness });
    harnesses.push(h);
    const b = owner(h, { id: 'owner-b', host: 'host-b' }, { liveness, ownerLeaseMs: 30_000 });
    b.startBackground();
    await settle();
    // Another owner (the harness's engine here) puts its worker to work; B hears nothing of it yet.
    await h.value('worker.add', { id: 'far', host: 'host-x' });
    await h.value('task.add', { id: 't1', title: 'far away' });
    await h.value('claim', { worker: 'far' });
    await h.value('start', { worker: 'far' });
    h.clock.advance(liveness.staleMs + 1_000);
    await settle();
    assert.equal(h.store.read((reader) => q.findWorker(reader, 'far'))?.state, WorkerState.Working, 'no timer of B knew of it');
    b.noteExternalChange({ workers: ['far'], tasks: [] });
    await settle();
    h.clock.advance(10);
    await settle();
    assert.equal(h.store.read((reader) => q.findWorker(reader, 'far'))?.state, WorkerState.Stale, "B's monitor judged it");
    b.dispose();
  });

  it('an owner that lost its lease registers again and says so', async () => {
    const h = await openEngine(settings);
    harnesses.push(h);
    const a = owner(h, { id: 'owner-a', host: 'host-a' });
    const failures: unknown[] = [];
    a.onDidFailInBackground((error) => failures.push(error));
    a.startBackground();
    // Another owner took A's work back meanwhile (A's lease ran out while it was stalled).
    h.store.write((tx) => {
      tx.run(`UPDATE owners SET released_at = 1 WHERE id = 'owner-a'`);
      return { ok: true, value: undefined };
    });
    h.clock.advance(leaseMs / 3);
    assert.match(String(failures[0]), /had lost its lease/);
    const row = h.store.read((reader) => q.listOwners(reader)).find((o) => o.id === 'owner-a');
    assert.equal(row?.released_at, null);
    assert.equal(row?.lease_until_ms, h.clock.now() + leaseMs);
    a.dispose();
  });
});
