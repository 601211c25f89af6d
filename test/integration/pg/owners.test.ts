/**
 * Several owners on one PostgreSQL store (issue 14), against a real server: owners' engines in
 * child processes claim 10,000 tasks with none taken twice and none left; an owner SIGKILLed while
 * its workers hold tasks loses them to the other owner once its lease runs out, under a new attempt,
 * and a late report from its attempt is refused; a task queued by one owner wakes the other's
 * dispatcher through NOTIFY (nothing polls), and its views hear of it.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { WorkerState } from '../../../src/core/workerMachine';
import * as q from '../../../src/engine/queries';
import type { Reader } from '../../../src/engine/ports';
import { StatusModel, addPending } from '../../../src/extension/statusModel';
import { PgListener } from '../../../src/infra/pg/listener';
import { SyncPgClient } from '../../../src/infra/pg/syncClient';
import { postgresPerFile } from '../../support/postgresPerFile';
import { type OwnerEngine, migrated, openOwnerEngine } from './ownerEngine';

const run = promisify(execFile);
const pg = postgresPerFile('owners');

/** A fresh database with Foreman's schema. */
const database = (): string => migrated(pg.database());

function open(url: string, id: string, host: string, overrides: Parameters<typeof openOwnerEngine>[2] = {}): OwnerEngine {
  const owner = openOwnerEngine(url, { id, host }, overrides);
  pg.closeAfter(() => owner.close());
  return owner;
}

/** Raw SQL on the server, for seeding in bulk and for checks from outside every owner. */
function sql<T extends object>(url: string, text: string, params: readonly (string | number)[] = []): T[] {
  const client = new SyncPgClient(url);
  try {
    return client.query<T>(text, params).rows;
  } finally {
    client.close();
  }
}

/** Queued tasks `t-00000`…, in one statement. */
function seedTasks(url: string, count: number, maxAttempts = 3): void {
  sql(
    url,
    `INSERT INTO tasks (id, title, prompt, status, sort_order, created_at, max_attempts)
     SELECT 't-' || lpad(n::text, 5, '0'), 'task ' || n, '', 'queued', n, 1000, $2 FROM generate_series(0, $1 - 1) AS n`,
    [count, maxAttempts],
  );
}

/** Waits (up to 20 s) until `check` holds: the owners' own timers and notifications do the work. */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('several owners on one PostgreSQL store', () => {
  it('8 processes of two owners: 10,000 claims through the engine, none twice, none left', async () => {
    const url = database();
    const processes = 8;
    const perProcess = 1_250;
    seedTasks(url, processes * perProcess);
    sql(
      url,
      `INSERT INTO workers (id, state, agent, state_changed_at, created_at, host)
       SELECT 'p' || p || '-' || n, 'IDLE', 'demo', 1000, 1000, CASE WHEN p < 4 THEN 'host-a' ELSE 'host-b' END
       FROM generate_series(0, $1 - 1) AS p, generate_series(0, $2 - 1) AS n`,
      [processes, perProcess],
    );
    const child = path.join(__dirname, 'ownersClaimChild.ts');
    const outputs = await Promise.all(
      Array.from({ length: processes }, (_, p) => {
        const [owner, host] = p < 4 ? ['owner-a', 'host-a'] : ['owner-b', 'host-b'];
        return run(process.execPath, ['--import', 'tsx', child, url, owner, host, `p${p}`, String(perProcess)], {
          timeout: 300_000,
          maxBuffer: 16 * 1024 * 1024,
        });
      }),
    );
    const claims = outputs.flatMap(({ stdout }) => JSON.parse(stdout) as Array<[string, number]>);
    assert.equal(claims.length, 10_000, 'every worker claimed a task');
    assert.equal(new Set(claims.map(([task]) => task)).size, 10_000, 'no task claimed twice');
    assert.ok(
      claims.every(([, attempt]) => attempt === 1),
      'each claim is its task’s first attempt',
    );
    const [left] = sql<{ queued: number; running: number; held: number }>(
      url,
      `SELECT (SELECT COUNT(*) FROM tasks WHERE status = 'queued') AS queued, (SELECT COUNT(*) FROM tasks WHERE status = 'running') AS running,
              (SELECT COUNT(DISTINCT task_id) FROM workers WHERE state = 'ASSIGNED') AS held`,
    );
    assert.deepEqual(left, { queued: 0, running: 10_000, held: 10_000 });
  });

  it("takes a SIGKILLed owner's tasks back after its lease, under a new attempt; its late reports are refused", async () => {
    const url = database();
    const leaseMs = 1_500;
    seedTasks(url, 4);
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'ownerHoldChild.ts'), url, '4', String(leaseMs)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    pg.closeAfter(() => child.kill('SIGKILL'));
    const held = await new Promise<Array<{ worker: string; task: string; attempt: number }>>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n'))
          resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as Array<{ worker: string; task: string; attempt: number }>);
      });
      child.once('exit', (code) => reject(new Error(`owner A exited early (${String(code)})`)));
    });
    assert.equal(held.length, 4);
    assert.ok(held.every((h) => h.attempt === 1));

    // Owner B on another machine, with two workers of its own; its liveness monitor would not call
    // A's silent workers stale for a long while: the lease is what takes the work back.
    const b = open(url, 'owner-b', 'host-b', {
      ownerLeaseMs: leaseMs,
      backoff: { baseMs: 0, maxMs: 0 },
      liveness: { warnMs: 600_000, staleMs: 1_200_000, deadMs: 2_400_000 },
      concurrency: 2,
    });
    for (const id of ['b1', 'b2']) assert.equal((await b.run('worker.add', { id })).ok, true);
    b.engine.startBackground();
    const workers = (reader: Reader) => q.listWorkers(reader);
    assert.deepEqual(
      b.store.read(workers).map((w) => [w.id, w.host, w.state]),
      [
        ['a1', 'host-a', 'WORKING'],
        ['a2', 'host-a', 'WORKING'],
        ['a3', 'host-a', 'WORKING'],
        ['a4', 'host-a', 'WORKING'],
        ['b1', 'host-b', 'IDLE'],
        ['b2', 'host-b', 'IDLE'],
      ],
      'B does not take work from a live owner',
    );

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    await until("B took A's work back and handed it to its own workers", () => {
      const rows = b.store.read(workers);
      return rows.filter((w) => w.host === 'host-b' && w.state === WorkerState.Assigned).length === 2;
    });

    const rows = b.store.read(workers);
    for (const a of rows.filter((w) => w.host === 'host-a')) {
      assert.equal(a.state, WorkerState.Idle, `${a.id} was let go, and not relaunched on B's machine`);
      assert.match(a.last_error ?? '', /owner owner-a on host-a stopped renewing its lease/);
    }
    const [owner] = sql<{ released_at: number | null }>(url, `SELECT released_at FROM owners WHERE id = 'owner-a'`);
    assert.notEqual(owner?.released_at, null, "A's row says its work was taken back");

    // A late message from A's attempt, through any front door: refused by the attempt fencing.
    for (const { worker, attempt } of held) {
      const submitted = await b.run('submit', { worker, attempt, summary: 'late' });
      assert.equal(submitted.ok, false);
      assert.equal(!submitted.ok && submitted.code, 'staleAttempt');
      const failed = await b.run('fail', { worker, attempt, reason: 'late' });
      assert.equal(!failed.ok && failed.code, 'staleAttempt');
    }

    // Nothing lost, nothing twice: every task is queued again or held by one of B's workers, at attempt 2.
    const tasks = sql<{ id: string; status: string; attempt: number; worker_id: string | null }>(
      url,
      'SELECT id, status, attempt, worker_id FROM tasks ORDER BY id',
    );
    assert.equal(tasks.length, 4);
    const running = tasks.filter((t) => t.status === 'running');
    assert.equal(running.length, 2, "B's two workers hold two of them");
    assert.ok(running.every((t) => t.attempt === 2 && (t.worker_id === 'b1' || t.worker_id === 'b2')));
    assert.ok(
      tasks.filter((t) => t.status !== 'running').every((t) => t.status === 'queued' && t.attempt === 1),
      'the others wait for a worker',
    );
    const done = sql<{ n: number }>(url, `SELECT COUNT(*) AS n FROM transitions WHERE entity_type = 'task' AND to_state = 'done'`);
    assert.equal(done[0]?.n, 0);
    const takeBacks = sql<{ n: number }>(
      url,
      `SELECT COUNT(*) AS n FROM transitions WHERE entity_type = 'worker' AND reason LIKE '%stopped renewing its lease%'`,
    );
    assert.equal(takeBacks[0]?.n, 4, "each of A's workers' attempts ended once");
  });

  it("a task queued by owner A wakes owner B's dispatcher through NOTIFY, and B's views see it", async () => {
    const url = database();
    const a = open(url, 'owner-a', 'host-a');
    const b = open(url, 'owner-b', 'host-b');
    assert.equal((await b.run('worker.add', { id: 'bob' })).ok, true);
    a.engine.startBackground();
    b.engine.startBackground();

    // B's views: a model read in full once, then kept up to date by what changes name.
    const model = new StatusModel();
    const status = (ids?: { workers: string[]; tasks: string[] }) => {
      const read = b.engine.query({ command: 'status', args: ids ? { ids } : {}, actor: 'test' });
      if (!read.ok) throw new Error(read.message);
      return read.value;
    };
    model.replace(status());
    let pending: ReturnType<typeof addPending> = { workers: new Set(), tasks: new Set() };
    b.engine.onDidChangeExternally((changed) => (pending = addPending(pending, changed)));
    const refresh = () => {
      const asked = pending === 'all' ? undefined : model.rowsToRead(pending);
      pending = { workers: new Set(), tasks: new Set() };
      if (asked) model.update(status({ workers: [...asked.workers], tasks: [...asked.tasks] }), asked);
      else model.replace(status());
    };

    const notices: string[] = [];
    const listener = new PgListener(url, {
      self: 'owner-b',
      onChange: (notice) => {
        notices.push(notice.owner);
        b.engine.noteExternalChange(notice.changed);
      },
    });
    pg.closeAfter(() => listener.close());
    await listener.ready;

    const added = await a.run('task.add', { id: 'from-a', title: 'queued on machine A' });
    assert.equal(added.ok, true);
    await until("B's dispatcher handed A's task to bob", () => b.store.read((reader) => q.findWorker(reader, 'bob'))?.task_id === 'from-a');
    assert.ok(notices.length > 0 && notices.every((owner) => owner === 'owner-a'), 'B heard only A, never itself');
    const bob = b.store.read((reader) => q.findWorker(reader, 'bob'));
    assert.equal(bob?.state, WorkerState.Assigned);
    assert.equal(bob?.owner_id, 'owner-b', 'B handed it, so its work hangs on B’s lease');

    refresh();
    assert.equal(model.task('from-a')?.title, 'queued on machine A', "B's model has A's task without a full read");
  });

  it('listens again after the server restarts, and says everything may have changed meanwhile', async () => {
    const url = database();
    const notices: Array<{ owner: string; changed: boolean }> = [];
    const listener = new PgListener(url, {
      self: 'owner-b',
      onChange: (notice) => notices.push({ owner: notice.owner, changed: notice.changed !== undefined }),
      minBackoffMs: 50,
      maxBackoffMs: 500,
    });
    pg.closeAfter(() => listener.close());
    await listener.ready;
    await pg.server().stopServer();
    await pg.server().start();
    await until('the listener is back', () => notices.some((n) => n.owner === '' && !n.changed));
    const a = open(url, 'owner-a', 'host-a');
    assert.equal((await a.run('task.add', { id: 'after-restart', title: 'after the restart' })).ok, true);
    await until("A's notification arrives", () => notices.some((n) => n.owner === 'owner-a' && n.changed));
  });
});
