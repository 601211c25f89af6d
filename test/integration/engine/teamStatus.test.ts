/**
 * Seeing the team (issue 29), on the test clock and on either store (FOREMAN_TEST_STORE): `status`
 * lists the owners of a shared store with their host, lease age, alive or gone since when, and
 * flags each worker whose machine has no live owner; a clean stop removes the owner's row (and its
 * machine's history of taken-back owners), or, with work still on its lease, ends the lease at once
 * so that another owner takes that work back at its next check. Across processes and a real server,
 * through the CLI: test/integration/pg/teamStatus.test.ts.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { WorkerState } from '../../../src/core/workerMachine';
import type { OwnerIdentity } from '../../../src/engine/ports';
import * as q from '../../../src/engine/queries';
import type { StatusSnapshot, WorkerStatus } from '../../../src/engine/statusView';
import { type EngineHarness, openEngine } from '../../support/engineHarness';
import { type OwnerEngine, openOwnerEngine, ownerTestLeaseMs, ownerTestSettings, settle } from '../../support/engineOwner';

const harnesses: EngineHarness[] = [];
after(() => harnesses.forEach((h) => h.close()));

const leaseMs = ownerTestLeaseMs;
const settings = ownerTestSettings;

type Owner = OwnerEngine;

/** An owner's engine on the harness's store and clock (each owner has its own; they share the rows). */
function owner(h: EngineHarness, identity: OwnerIdentity): Owner {
  return openOwnerEngine({ dir: h.dir, store: h.store, clock: h.clock, settings, identity });
}

/** Advances the clock a third of a lease at a time (each renewal and check runs), `times` times. */
async function passThirds(h: EngineHarness, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    h.clock.advance(leaseMs / 3);
    await settle();
  }
}

const workerOf = (status: StatusSnapshot, id: string): WorkerStatus => {
  const found = status.workers.find((worker) => worker.id === id);
  assert.ok(found, `worker ${id} in the status`);
  return found;
};

describe('engine: status shows the owners of a shared store', () => {
  it("lists each owner with host, lease age and alive or gone since; flags a dead machine's workers", async () => {
    const h = await openEngine(settings);
    harnesses.push(h);
    const a = owner(h, { id: 'owner-a', host: 'host-a', pid: 101 });
    const b = owner(h, { id: 'owner-b', host: 'host-b', pid: 202 });
    assert.equal((await a.run('worker.add', { id: 'ada' })).ok, true);
    assert.equal((await b.run('worker.add', { id: 'bob' })).ok, true);
    assert.equal((await b.run('worker.add', { id: 'cid', host: 'host-c' })).ok, true);
    a.startBackground();
    b.startBackground();
    await settle();
    // Handed to ada by its own owner, before any dispatcher's turn: its work hangs on A's lease.
    await h.value('task.add', { id: 't1', title: 'for ada' });
    assert.equal((await a.run('assign', { worker: 'ada', task: 't1' })).ok, true);
    await settle();
    assert.equal(h.store.read((reader) => q.findWorker(reader, 'ada'))?.owner_id, 'owner-a');
    const startedAt = h.clock.now();
    h.clock.advance(400);

    const live = b.status();
    assert.deepEqual(
      live.owners.map((o) => [o.id, o.host, o.pid, o.alive, o.goneSince, o.workTakenBackAt, o.leaseAgeMs, o.startedAt]),
      [
        ['owner-a', 'host-a', 101, true, null, null, 400, startedAt],
        ['owner-b', 'host-b', 202, true, null, null, 400, startedAt],
      ],
    );
    assert.deepEqual(workerOf(live, 'ada').hostOwner, { ownerId: 'owner-a', alive: true, goneSince: null });
    assert.deepEqual(workerOf(live, 'bob').hostOwner, { ownerId: 'owner-b', alive: true, goneSince: null });
    assert.deepEqual(workerOf(live, 'cid').hostOwner, { ownerId: null, alive: false, goneSince: null }, 'no owner on host-c');
    assert.deepEqual(
      (a.query({ command: 'worker.list', args: {}, actor: 'test' }) as { ok: true; value: WorkerStatus[] }).value.map((w) => [
        w.id,
        w.hostOwner?.alive,
      ]),
      [
        ['ada', true],
        ['bob', true],
        ['cid', false],
      ],
      'worker list flags them the same',
    );
    // An engine of a store with one owner (no identity) shows no owners and flags nothing.
    const alone = h.query('status', {});
    assert.deepEqual(alone.owners, []);
    assert.ok(alone.workers.every((w) => w.hostOwner === undefined));

    // A goes silent with ada's task on its lease: nothing renews it (dispose is no clean stop).
    const lastRenewal = h.store.read((reader) => q.findOwner(reader, 'owner-a'))!.lease_until_ms - leaseMs;
    a.dispose();
    await passThirds(h, 5);
    const dead = b.status();
    const ownerA = dead.owners.find((o) => o.id === 'owner-a');
    assert.ok(ownerA, "A's row is shown: its machine has no live owner");
    assert.equal(ownerA.alive, false);
    assert.equal(ownerA.goneSince, lastRenewal + leaseMs, 'gone since its lease ran out');
    assert.equal(ownerA.renewedAt, lastRenewal);
    assert.equal(ownerA.leaseAgeMs, h.clock.now() - lastRenewal);
    assert.notEqual(ownerA.workTakenBackAt, null, 'B took its work back');
    assert.deepEqual(workerOf(dead, 'ada').hostOwner, { ownerId: 'owner-a', alive: false, goneSince: lastRenewal + leaseMs });
    assert.equal(workerOf(dead, 'ada').state, WorkerState.Idle, 'an idle worker that only looks normal: flagged');
    assert.equal(dead.owners.find((o) => o.id === 'owner-b')?.alive, true);
    b.endLease();
    b.dispose();
  });

  it('a clean stop removes the row and its machine’s history; with work on its lease, it ends the lease at once', async () => {
    const h = await openEngine(settings);
    harnesses.push(h);
    const b = owner(h, { id: 'owner-b', host: 'host-b' });
    b.startBackground();
    // An owner of host-a that died and whose work B took back: history.
    const first = owner(h, { id: 'owner-a1', host: 'host-a' });
    first.startBackground();
    await settle();
    first.dispose();
    await passThirds(h, 6);
    assert.notEqual(h.store.read((reader) => q.findOwner(reader, 'owner-a1'))?.released_at, null);

    // Host-a's next owner, holding nothing, stops cleanly: its row goes, and so does the old one.
    const second = owner(h, { id: 'owner-a2', host: 'host-a' });
    assert.equal((await second.run('worker.add', { id: 'ada' })).ok, true);
    second.startBackground();
    await passThirds(h, 1);
    assert.deepEqual(
      b.status().owners.map((o) => [o.id, o.alive]),
      [
        ['owner-a2', true],
        ['owner-b', true],
      ],
      'a taken-back owner of a machine with a live one is history, not shown',
    );
    second.endLease();
    second.dispose();
    assert.deepEqual(
      h.store.read((reader) => q.listOwners(reader)).map((o) => o.id),
      ['owner-b'],
      'the stopped owner left no row, and its machine no history',
    );
    assert.deepEqual(workerOf(b.status(), 'ada').hostOwner, { ownerId: null, alive: false, goneSince: null }, 'no owner runs on host-a');

    // A third owner of host-a stops while its worker holds a task: the lease ends now, and B takes
    // the task back at its next check, well before a lease would have run out.
    const third = owner(h, { id: 'owner-a3', host: 'host-a' });
    third.startBackground();
    await h.value('task.add', { id: 't1', title: 'held at the stop' });
    await settle();
    assert.equal(h.store.read((reader) => q.findWorker(reader, 'ada'))?.owner_id, 'owner-a3');
    third.endLease();
    third.dispose();
    const row = h.store.read((reader) => q.findOwner(reader, 'owner-a3'));
    assert.ok(row && row.lease_until_ms < h.clock.now(), 'its row stays, its lease over');
    assert.equal(b.status().owners.find((o) => o.id === 'owner-a3')?.alive, false);
    await passThirds(h, 1);
    const ada = h.store.read((reader) => q.findWorker(reader, 'ada'));
    assert.equal(ada?.state, WorkerState.Idle);
    assert.match(ada?.last_error ?? '', /owner owner-a3 on host-a stopped renewing its lease/);
    assert.deepEqual(h.store.read((reader) => q.findTask(reader, 't1'))?.status, 'queued');
    b.endLease();
    b.dispose();
    assert.equal(
      h.store.read((reader) => q.findOwner(reader, 'owner-b')),
      undefined,
    );
  });
});
