/**
 * The PostgreSQL merge lock (src/infra/pg/mergeLock.ts) against a real server: two locks standing
 * for two machines take turns, a wait past the timeout is refused, and a connection lost while
 * holding the lock aborts the lease (and the server hands the lock to the next machine).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from 'pg';
import { type MergeLease, MergeLockError } from '../../../src/infra/git/mergeLock';
import { PgMergeLock, mergeLockKey } from '../../../src/infra/pg/mergeLock';
import { type TestPostgres, startPostgres } from '../../support/postgres';

let server: TestPostgres;
let admin: Client;

before(async () => {
  server = await startPostgres();
  admin = new Client({ connectionString: server.url });
  await admin.connect();
});
after(async () => {
  await admin?.end();
  await server?.stop();
});

/** Resolves once some session waits for the merge lock (asked of the server, not guessed from time). */
async function untilSomeoneWaits(): Promise<void> {
  for (;;) {
    const waiting = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::int4::oid AND objid = $2::int4::oid AND NOT granted`,
      [mergeLockKey.namespace, mergeLockKey.id],
    );
    if ((waiting.rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The backend pid holding the merge lock, if any. */
async function holderPid(): Promise<number | undefined> {
  const held = await admin.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::int4::oid AND objid = $2::int4::oid AND granted`,
    [mergeLockKey.namespace, mergeLockKey.id],
  );
  return held.rows[0]?.pid;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => undefined as void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('PgMergeLock', () => {
  it('lets two machines merge one after the other, and releases the lock after each', async () => {
    const machineA = new PgMergeLock({ url: server.url });
    const machineB = new PgMergeLock({ url: server.url });
    const order: string[] = [];
    const release = deferred();
    const entered = deferred();
    const first = machineA.run(async (lease) => {
      order.push('A in');
      assert.equal(await lease.stillHeld(), true);
      entered.resolve();
      await release.promise;
      order.push('A out');
      return 'A';
    });
    await entered.promise;
    const second = machineB.run(async (lease) => {
      order.push('B in');
      assert.equal(await lease.stillHeld(), true);
      order.push('B out');
      return 'B';
    });
    await untilSomeoneWaits();
    assert.deepEqual(order, ['A in']);
    release.resolve();
    assert.deepEqual(await Promise.all([first, second]), ['A', 'B']);
    assert.deepEqual(order, ['A in', 'A out', 'B in', 'B out']);
    assert.equal(await holderPid(), undefined);
  });

  it('releases the lock when the merge throws', async () => {
    const lock = new PgMergeLock({ url: server.url });
    await assert.rejects(
      lock.run(() => Promise.reject(new Error('git exploded'))),
      /git exploded/,
    );
    assert.equal(await holderPid(), undefined);
    assert.equal(await lock.run(() => Promise.resolve('again')), 'again');
  });

  it('refuses a wait longer than the timeout, with a clear error', async () => {
    const holder = new PgMergeLock({ url: server.url });
    const release = deferred();
    const entered = deferred();
    const held = holder.run(async () => {
      entered.resolve();
      await release.promise;
    });
    await entered.promise;
    const impatient = new PgMergeLock({ url: server.url, timeoutMs: 200 });
    await assert.rejects(
      impatient.run(() => Promise.resolve('never')),
      (error: unknown) => error instanceof MergeLockError && error.code === 'mergeLockTimeout' && /try the merge again/.test(error.message),
    );
    release.resolve();
    await held;
  });

  it('aborts the lease when its connection is lost, and the next machine gets the lock', async () => {
    const machineA = new PgMergeLock({ url: server.url });
    const entered = deferred();
    let leaseA: MergeLease | undefined;
    const first = machineA.run(async (lease) => {
      leaseA = lease;
      entered.resolve();
      await new Promise<void>((resolve) => lease.signal.addEventListener('abort', () => resolve(), { once: true }));
      return lease.stillHeld();
    });
    await entered.promise;
    const pid = await holderPid();
    assert.ok(pid !== undefined);
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    assert.equal(await first, false);
    assert.equal(leaseA?.signal.aborted, true);
    assert.equal(await new PgMergeLock({ url: server.url, timeoutMs: 5000 }).run(() => Promise.resolve('B merges')), 'B merges');
  });

  it('says so when the server cannot be reached, without the password', async () => {
    const url = new URL(server.url);
    url.port = String(server.port === 1 ? 2 : 1);
    const lock = new PgMergeLock({ url: url.toString(), connectTimeoutMs: 2000 });
    await assert.rejects(
      lock.run(() => Promise.resolve('never')),
      (error: unknown) =>
        error instanceof MergeLockError && error.code === 'mergeLockUnavailable' && !error.message.includes(server.password),
    );
  });
});
