/**
 * An outage is not a death (issue 29, item 2), on the test clock and on either store
 * (FOREMAN_TEST_STORE). Each owner reaches the store through a switch the test turns off and on
 * (the server away) and keeps its lease by a server clock the test drives (including when the
 * server last started). When every owner lost the store for twice the lease, the live ones renew
 * first and nobody judges a lease until a whole lease after the server is back: only the dead
 * owner's work is taken back. When one owner alone lost the store, the others take its work back
 * once its lease ran out, and it says so when it is back. With a real server and real agents:
 * test/integration/pg/outage.test.ts.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Result } from '../../../src/core/result';
import { WorkerState } from '../../../src/core/workerMachine';
import type { LeaseClock } from '../../../src/engine/ownerLease';
import type { OwnerIdentity, Reader, Store, Tx, WriteOptions } from '../../../src/engine/ports';
import * as q from '../../../src/engine/queries';
import type { WorkerRow } from '../../../src/engine/rows';
import { StoreError } from '../../../src/infra/db/storeError';
import { type EngineHarness, openEngine } from '../../support/engineHarness';
import { type OwnerEngine, openOwnerEngine, ownerTestLeaseMs, ownerTestSettings, settle } from '../../support/engineOwner';

const harnesses: EngineHarness[] = [];
after(() => harnesses.forEach((h) => h.close()));

const leaseMs = ownerTestLeaseMs;
const tick = leaseMs / 3;
const settings = ownerTestSettings;

/** The shared server as the owners see it: up or away, cut off from some owners, and when it last started. */
class Server {
  up = true;
  startedAt = Number.NEGATIVE_INFINITY;
  /** Owners whose machine lost the network: the server is away for them alone. */
  readonly cutOff = new Set<string>();

  constructor(private readonly h: EngineHarness) {}

  private check(ownerId: string): void {
    if (!this.up || this.cutOff.has(ownerId)) throw new StoreError('unreachable', 'Cannot connect to the test server: it is away.');
  }

  /** The store as one owner reaches it. */
  storeFor(ownerId: string): Store {
    const store = this.h.store;
    return {
      read: <T>(fn: (reader: Reader) => T): T => {
        this.check(ownerId);
        return store.read(fn);
      },
      write: <T>(fn: (tx: Tx) => Result<T>, options?: WriteOptions): Result<T> => {
        this.check(ownerId);
        return store.write(fn, options);
      },
      checkpoint: () => store.checkpoint(),
      // The harness closes the shared store.
      close: () => undefined,
    };
  }

  /** The server's clock as one owner reads it: the test's clock, when the server answers. */
  clockFor(ownerId: string): LeaseClock {
    return {
      read: () => {
        this.check(ownerId);
        return { now: this.h.clock.now(), startedAt: this.startedAt };
      },
    };
  }
}

type Owner = OwnerEngine & { readonly notices: string[] };

function owner(h: EngineHarness, server: Server, identity: OwnerIdentity): Owner {
  const store = server.storeFor(identity.id);
  const engine = openOwnerEngine({ dir: h.dir, store, clock: h.clock, settings, identity, leaseClock: server.clockFor(identity.id) });
  const notices: string[] = [];
  engine.onDidFailInBackground((error) => notices.push(error instanceof Error ? error.message : String(error)));
  return Object.assign(engine, { notices });
}

/** Moves the clock by `ms` a renewal at a time, so each owner's renewal runs at its own time. */
async function pass(h: EngineHarness, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= tick) {
    h.clock.advance(Math.min(tick, left));
    await settle();
  }
}

/** Three owners, each with one worker holding a task of its own. */
async function crew(): Promise<{ h: EngineHarness; server: Server; owners: Record<'a' | 'b' | 'c', Owner> }> {
  const h = await openEngine(settings);
  harnesses.push(h);
  const server = new Server(h);
  const owners = {
    a: owner(h, server, { id: 'owner-a', host: 'host-a' }),
    b: owner(h, server, { id: 'owner-b', host: 'host-b' }),
    c: owner(h, server, { id: 'owner-c', host: 'host-c' }),
  };
  for (const [key, engine] of Object.entries(owners)) {
    assert.equal((await engine.run('worker.add', { id: `${key}1` })).ok, true);
    await h.value('task.add', { id: `t-${key}`, title: `${key}'s` });
    engine.startBackground();
    await settle();
  }
  // A whole lease connected: each owner may judge the others from now on.
  await pass(h, leaseMs);
  return { h, server, owners };
}

function worker(h: EngineHarness, id: string): WorkerRow {
  const row = h.store.read((reader) => q.findWorker(reader, id));
  assert.ok(row, id);
  return row;
}

describe('engine: an outage of the store is not the death of its owners', () => {
  it('the store away for twice the lease: the live owners keep their work; the dead one’s is taken back a lease after the store is back', async () => {
    const { h, server, owners } = await crew();
    for (const id of ['a1', 'b1', 'c1']) assert.deepEqual([worker(h, id).state, worker(h, id).attempt], [WorkerState.Assigned, 1], id);

    server.up = false;
    owners.c.dispose();
    await pass(h, 2 * leaseMs);
    for (const live of [owners.a, owners.b]) {
      assert.equal(live.notices.filter((line) => /cannot renew its lease/.test(line)).length, 1, 'said once per outage');
    }

    // The server restarts: every lease in it ran out long ago by its clock.
    server.up = true;
    server.startedAt = h.clock.now();
    const backAt = h.clock.now();
    await pass(h, leaseMs - tick);
    for (const live of [owners.a, owners.b]) assert.match(live.notices.at(-1) ?? '', /reaches the store again after 6s/);
    for (const id of ['a1', 'b1', 'c1']) {
      assert.equal(worker(h, id).state, WorkerState.Assigned, `${id}: nothing is judged within a lease of the store's return`);
    }

    await pass(h, 2 * tick);
    assert.ok(h.clock.now() - backAt >= leaseMs);
    assert.equal(worker(h, 'c1').state, WorkerState.Idle);
    assert.match(worker(h, 'c1').last_error ?? '', /owner owner-c on host-c stopped renewing its lease/);
    for (const id of ['a1', 'b1']) {
      assert.deepEqual([worker(h, id).state, worker(h, id).attempt], [WorkerState.Assigned, 1], `${id} keeps its first attempt`);
    }
    const released = h.store.read((reader) => q.listOwners(reader)).filter((row) => row.released_at !== null);
    assert.deepEqual(
      released.map((row) => row.id),
      ['owner-c'],
    );
    for (const live of [owners.a, owners.b]) assert.ok(!live.notices.some((line) => /had lost its lease/.test(line)));
    owners.a.dispose();
    owners.b.dispose();
  });

  it('one owner alone loses the store: the others take its work back once its lease ran out, and it says so when it is back', async () => {
    const { h, server, owners } = await crew();
    // B's machine loses the network; A and C still reach the server and judge B's lease as usual.
    server.cutOff.add('owner-b');
    await pass(h, leaseMs + 2 * tick);
    assert.equal(worker(h, 'b1').state, WorkerState.Idle, "B's lease ran out while the others were connected: its work is taken back");
    assert.match(worker(h, 'b1').last_error ?? '', /owner owner-b on host-b stopped renewing its lease/);
    for (const id of ['a1', 'c1']) assert.deepEqual([worker(h, id).state, worker(h, id).attempt], [WorkerState.Assigned, 1], id);
    server.cutOff.delete('owner-b');
    await pass(h, tick);
    assert.match(
      owners.b.notices.at(-1) ?? '',
      /had lost its lease \(its work was taken back by another owner while it could not reach the store for \d+s\)/,
    );
    for (const engine of Object.values(owners)) engine.dispose();
  });
});
