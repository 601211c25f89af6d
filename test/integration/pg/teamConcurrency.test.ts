/**
 * Concurrency with several owners on one PostgreSQL store (issue 29): each machine's `concurrency`
 * counts the busy workers of that machine only, so another machine's running agents never keep this
 * one's idle workers waiting; `teamConcurrency` caps the whole team when it is set; and the work of a
 * SIGKILLed owner runs again on another machine within its lease plus the backoff, however many
 * workers are busy elsewhere.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Reader } from '../../../src/engine/ports';
import * as q from '../../../src/engine/queries';
import type { WorkerRow } from '../../../src/engine/rows';
import { PgListener } from '../../../src/infra/pg/listener';
import { SyncPgClient } from '../../../src/infra/pg/syncClient';
import { pollUntil } from '../../support/pollUntil';
import { postgresPerFile } from '../../support/postgresPerFile';
import { type OwnerEngine, migrated, openOwnerEngine } from './ownerEngine';

const pg = postgresPerFile('team_concurrency');

/** A fresh database with Foreman's schema. */
const database = (): string => migrated(pg.database());

/** Liveness far beyond the test: workers without agents stay ASSIGNED, busy, the whole time. */
const patient = { liveness: { warnMs: 600_000, staleMs: 1_200_000, deadMs: 2_400_000 } };

/** An owner on `host`, hearing the other owners' changes as `foreman serve` does (PgListener → noteExternalChange). */
async function open(url: string, id: string, host: string, overrides: Parameters<typeof openOwnerEngine>[2] = {}): Promise<OwnerEngine> {
  const owner = openOwnerEngine(url, { id, host }, { ...patient, ...overrides });
  pg.closeAfter(() => owner.close());
  const listener = new PgListener(url, { self: id, onChange: (notice) => owner.engine.noteExternalChange(notice.changed) });
  pg.closeAfter(() => listener.close());
  await listener.ready;
  return owner;
}

async function addWorkers(owner: OwnerEngine, ids: readonly string[]): Promise<void> {
  for (const id of ids) assert.equal((await owner.run('worker.add', { id })).ok, true, id);
}

async function addTasks(owner: OwnerEngine, ids: readonly string[]): Promise<void> {
  for (const id of ids) assert.equal((await owner.run('task.add', { id, title: `task ${id}` })).ok, true, id);
}

const busyStates = new Set(['ASSIGNED', 'WORKING', 'STALE']);
const workers = (owner: OwnerEngine): WorkerRow[] => owner.store.read((reader: Reader) => q.listWorkers(reader));
const busyOn = (rows: readonly WorkerRow[], host: string): WorkerRow[] => rows.filter((w) => w.host === host && busyStates.has(w.state));

/** Asks an owner's dispatcher to hand out work now; returns how many tasks it handed out. */
async function dispatchNow(owner: OwnerEngine): Promise<number> {
  const dispatched = await owner.run('dispatch', {});
  assert.ok(dispatched.ok, dispatched.ok ? '' : dispatched.message);
  return dispatched.value.length;
}

describe('concurrency with several owners on one store', () => {
  it("counts each machine's own busy workers: machine B's idle workers take work while A's run", async () => {
    const url = database();
    const a = await open(url, 'owner-a', 'host-a', { concurrency: 2 });
    const b = await open(url, 'owner-b', 'host-b', { concurrency: 2 });
    await addWorkers(a, ['a1', 'a2', 'a3']);
    await addWorkers(b, ['b1', 'b2', 'b3']);
    await addTasks(a, ['t1', 't2', 't3', 't4', 't5', 't6']);

    a.engine.startBackground();
    await pollUntil(() => busyOn(workers(a), 'host-a').length === 2, { what: "A's dispatcher filled its two places" });
    b.engine.startBackground();
    await pollUntil(() => busyOn(workers(b), 'host-b').length === 2, {
      what: "B's dispatcher filled its two places while A's two run",
      detail: () => JSON.stringify(workers(b).map((w) => [w.id, w.state])),
    });

    // Each machine stays at its own limit: asked again, neither hands out more.
    assert.equal(await dispatchNow(a), 0);
    assert.equal(await dispatchNow(b), 0);
    const rows = workers(a);
    assert.deepEqual([busyOn(rows, 'host-a').length, busyOn(rows, 'host-b').length], [2, 2]);
    const [queued] = sql<{ n: number }>(url, `SELECT COUNT(*) AS n FROM tasks WHERE status = 'queued'`);
    assert.equal(queued?.n, 2, 'the other two tasks wait for a place');
  });

  it('teamConcurrency caps the busy workers of every machine together', async () => {
    const url = database();
    const limits = { concurrency: 2, teamConcurrency: 3 };
    const a = await open(url, 'owner-a', 'host-a', limits);
    const b = await open(url, 'owner-b', 'host-b', limits);
    await addWorkers(a, ['a1', 'a2', 'a3']);
    await addWorkers(b, ['b1', 'b2', 'b3']);
    await addTasks(a, ['t1', 't2', 't3', 't4', 't5', 't6']);

    a.engine.startBackground();
    await pollUntil(() => busyOn(workers(a), 'host-a').length === 2, { what: "A's dispatcher filled its two places" });
    b.engine.startBackground();
    await pollUntil(() => busyOn(workers(b), 'host-b').length === 1, { what: 'B took the one place the team has left' });
    assert.equal(await dispatchNow(b), 0, 'B stays under the team cap');
    assert.equal(await dispatchNow(a), 0, 'A stays under its own limit');

    // A place freed on A goes back to the team and is filled again (by A or B), never past the cap.
    const [held] = busyOn(workers(a), 'host-a');
    assert.ok(held);
    const failed = await a.run('fail', { worker: held.id, attempt: held.attempt, reason: 'freeing a place' });
    assert.ok(failed.ok, failed.ok ? '' : failed.message);
    await pollUntil(() => busyOn(workers(a), 'host-a').length + busyOn(workers(a), 'host-b').length === 3, {
      what: 'the freed place taken again',
    });
    assert.equal(await dispatchNow(a), 0);
    assert.equal(await dispatchNow(b), 0);
    const rows = workers(a);
    assert.equal(rows.filter((w) => busyStates.has(w.state)).length, 3, 'never more than the team cap');
    assert.ok(busyOn(rows, 'host-a').length <= 2 && busyOn(rows, 'host-b').length <= 2, 'nor more than a machine’s own limit');
  });

  it("runs a SIGKILLed owner's tasks again within its lease plus the backoff, with other machines' workers busy", async (context) => {
    const url = database();
    const leaseMs = 1_500;
    const backoffMs = 500;
    sql(
      url,
      `INSERT INTO tasks (id, title, prompt, status, sort_order, created_at, max_attempts) VALUES
      ('held-1', 'held by A', '', 'queued', 1, 1000, 3), ('held-2', 'held by A', '', 'queued', 2, 1000, 3)`,
    );
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'ownerHoldChild.ts'), url, '2', String(leaseMs)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    pg.closeAfter(() => child.kill('SIGKILL'));
    const held = await firstLine<Array<{ worker: string; task: string; attempt: number }>>(child);
    assert.deepEqual(held.map((h) => h.task).sort(), ['held-1', 'held-2']);

    // Machine C keeps two workers busy the whole time: the team has 4 busy, more than B's limit of 2.
    const backoff = { baseMs: backoffMs, maxMs: backoffMs };
    // C's lease is the default one: a busy test process must not make C look dead to B.
    const c = await open(url, 'owner-c', 'host-c', { concurrency: 2, backoff });
    await addWorkers(c, ['c1', 'c2']);
    await addTasks(c, ['long-1', 'long-2']);
    c.engine.startBackground();
    await pollUntil(() => busyOn(workers(c), 'host-c').length === 2, { what: "C's two workers busy" });

    const b = await open(url, 'owner-b', 'host-b', { concurrency: 2, ownerLeaseMs: leaseMs, backoff });
    await addWorkers(b, ['b1', 'b2']);
    b.engine.startBackground();

    child.kill('SIGKILL');
    const killedAt = Date.now();
    await new Promise((resolve) => child.once('exit', resolve));
    await pollUntil(() => busyOn(workers(b), 'host-b').length === 2, {
      what: "B's workers running A's tasks again",
      timeoutMs: 20_000,
      intervalMs: 20,
      detail: () => JSON.stringify(workers(b).map((w) => [w.id, w.host, w.state, w.task_id, w.attempt])),
    });
    const elapsed = Date.now() - killedAt;
    const rows = workers(b);
    assert.deepEqual(
      busyOn(rows, 'host-b')
        .map((w) => [w.task_id, w.attempt])
        .sort(),
      [
        ['held-1', 2],
        ['held-2', 2],
      ],
    );
    assert.equal(
      busyOn(rows, 'host-c').length,
      2,
      `C's work was never touched: ${JSON.stringify(rows.map((w) => [w.id, w.state, w.task_id, w.last_error]))}`,
    );
    // A's lease runs out at most a lease after its last renewal; B looks every third of a lease; then the backoff.
    const bound = leaseMs + Math.ceil(leaseMs / 3) + backoffMs;
    context.diagnostic(`A's tasks ran again ${elapsed} ms after it was killed (lease ${leaseMs} ms, backoff ${backoffMs} ms)`);
    assert.ok(elapsed <= bound + 1_000, `A's tasks ran again ${elapsed} ms after it died (bound ${bound} ms, plus 1 s for a busy machine)`);
  });
});

/** Raw SQL on the server, from outside every owner. */
function sql<T extends object>(url: string, text: string, params: readonly (string | number)[] = []): T[] {
  const client = new SyncPgClient(url);
  try {
    return client.query<T>(text, params).rows;
  } finally {
    client.close();
  }
}

/** The first line a child prints, parsed as JSON; rejects when it exits first. */
function firstLine<T>(child: ChildProcess): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as T);
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the owner exited early (${String(code)}): ${err}`)));
  });
}
