/**
 * `foreman claim` on PostgreSQL is one statement (issue 29, src/engine/queries/workerClaim.ts): the
 * worker's read, the task's claim, the worker's guarded move, both transition rows and the lease.
 * Against a real server: it writes the same rows and answers the same refusals as the path of
 * several statements that sql.js runs (the state_change messages included, written by the claim's
 * statement); it takes two round trips (the claim, the commit) where it took four; the lease holder is set for this machine's workers only; and a worker that leaves IDLE
 * while the statement waits for its row lock is refused with the task's claim rolled back.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type CommandInput, type CommandName, parseCommand } from '../../../src/core/requests';
import { Engine } from '../../../src/engine/engine';
import type { Store } from '../../../src/engine/ports';
import { defaultEngineSettings } from '../../../src/engine/settings';
import { SqlJsStore } from '../../../src/infra/db';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../../../src/infra/fs';
import { GitPortAdapter } from '../../../src/infra/git/gitPort';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { SyncPgClient } from '../../../src/infra/pg/syncClient';
import { initRepository } from '../../support/engineOwner';
import { ManualClock } from '../../support/manualClock';
import { pollUntil } from '../../support/pollUntil';
import { type TestPostgres, createDatabase, startPostgres } from '../../support/postgres';

let server: TestPostgres;
const cleanups: Array<() => void> = [];
let databases = 0;

before(async () => {
  server = await startPostgres();
});
after(async () => {
  for (const cleanup of cleanups.reverse()) cleanup();
  await server?.stop();
});

/** A real engine on `store` (its clock the test's), optionally one owner of several. */
function engineOn(store: Store, owner?: { id: string; host: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'foreman-claim-'));
  initRepository(dir);
  const foremanDir = join(dir, '.foreman');
  const clock = new ManualClock();
  const settings = { ...defaultEngineSettings, concurrency: 0 };
  const engine = new Engine({
    store,
    settings,
    blobs: new FileBlobStore(join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    archive: new FileArchiveSink(foremanDir),
    git: new GitPortAdapter(dir, () => 'main', { branchTemplate: settings.branchTemplate }),
    crew: { mergeStrategy: 'rebase' },
    clock,
    ...(owner ? { owner } : {}),
  });
  cleanups.push(() => {
    engine.dispose();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const run = <C extends CommandName>(command: C, args: CommandInput<C>) => {
    const parsed = parseCommand(command, args, { actor: 'tester' });
    if (!parsed.ok) throw new Error(parsed.message);
    return engine.execute(parsed.request);
  };
  return { engine, store, run, clock };
}

function pgDatabase(): string {
  return createDatabase(server.url, `worker_claim_${process.pid}_${++databases}`);
}

/** What a claim leaves in the tables, without the columns that differ by store (seq, ids of messages). */
function claimRows(store: Store) {
  return store.read((reader) => ({
    workers: reader.all(`SELECT id, state, task_id, branch, attempt, version, state_changed_at, owner_id FROM workers ORDER BY id`),
    tasks: reader.all(`SELECT id, status, attempt, worker_id, last_worker_id, branch, started_at, version FROM tasks ORDER BY id`),
    transitions: reader.all(
      `SELECT ts_ms, entity_type, entity_id, from_state, to_state, trigger, reason, actor, attempt, request_id, metadata FROM transitions
        WHERE trigger IN ('claim', 'assign') ORDER BY seq`,
    ),
    leases: reader.all(`SELECT task_id, claimed_by, attempt, claimed_at_ms, lease_until_ms FROM task_claims ORDER BY task_id`),
    stateChanges: reader.all(`SELECT payload FROM messages WHERE type = 'state_change' ORDER BY seq`),
  }));
}

/** The same requests on an engine: two workers, two tasks, claims and refusals; the answers in order. */
async function scenario(run: ReturnType<typeof engineOn>['run']) {
  const answers: unknown[] = [];
  const say = (result: { ok: boolean; value?: unknown; code?: string; message?: string }) =>
    answers.push(result.ok ? { ok: true, value: result.value } : { ok: false, code: result.code, message: result.message });
  await run('worker.add', { id: 'ada' });
  await run('worker.add', { id: 'bob' });
  await run('task.add', { id: 'first', title: 'First' });
  await run('task.add', { id: 'second', title: 'Second' });
  say(await run('claim', { worker: 'ada' }));
  say(await run('claim', { worker: 'ada' }));
  say(await run('claim', { worker: 'nobody' }));
  say(await run('claim', { worker: 'bob' }));
  say(await run('claim', { worker: 'bob' }));
  await run('worker.add', { id: 'cy' });
  say(await run('claim', { worker: 'cy' }));
  return answers;
}

describe('foreman claim as one statement on PostgreSQL', () => {
  it('writes the rows and gives the answers of the path of several statements (sql.js)', async () => {
    const liteDir = mkdtempSync(join(tmpdir(), 'foreman-lite-'));
    cleanups.push(() => rmSync(liteDir, { recursive: true, force: true }));
    const lite = engineOn(await SqlJsStore.open(join(liteDir, '.foreman')));
    const pgStore = PgStore.open(pgDatabase());
    const pg = engineOn(pgStore);
    const liteAnswers = await scenario(lite.run);
    const pgAnswers = await scenario(pg.run);
    assert.deepEqual(pgAnswers, liteAnswers);
    assert.deepEqual((pgAnswers[0] as { value: unknown }).value, { id: 'first', attempt: 1, branch: 'ada/first' });
    assert.deepEqual(pgAnswers[5], { ok: true, value: null }, 'an empty queue claims nothing');
    const rows = claimRows(pgStore);
    assert.deepEqual(rows, claimRows(lite.store));
    assert.equal(rows.transitions.length, 4, 'a task and a worker transition per claim');
    assert.deepEqual(
      rows.transitions.map((row) => [row['entity_type'], row['entity_id'], row['trigger'], row['metadata']]),
      [
        ['task', 'first', 'claim', '{"workerId":"ada"}'],
        ['worker', 'ada', 'assign', '{"taskId":"first","attempt":1}'],
        ['task', 'second', 'claim', '{"workerId":"bob"}'],
        ['worker', 'bob', 'assign', '{"taskId":"second","attempt":1}'],
      ],
    );
  });

  it('takes two round trips: the claim with its BEGIN and its messages, then the commit', async () => {
    const { run } = engineOn(PgStore.open(pgDatabase()));
    await run('worker.add', { id: 'ada' });
    await run('task.add', { id: 'only', title: 'Only' });
    // A spy on the real client's public method (it still runs every statement): what each round trip carried.
    const trips: string[][] = [];
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
    const batch = SyncPgClient.prototype.batch;
    SyncPgClient.prototype.batch = function (statements) {
      trips.push(statements.map((statement) => statement.sql.trim().split(/\s+/)[0] ?? ''));
      return batch.call(this, statements);
    };
    try {
      const claimed = await run('claim', { worker: 'ada' });
      assert.equal(claimed.ok, true);
    } finally {
      SyncPgClient.prototype.batch = batch;
    }
    assert.equal(trips.length, 2, `round trips: ${JSON.stringify(trips)}`);
    assert.deepEqual(trips[0], ['BEGIN', 'WITH']);
    assert.equal(trips[1]?.at(-1), 'COMMIT');
    // The state_change messages are the claim statement's own rows: the commit carries no INSERT of them.
    assert.equal(trips[1]?.includes('INSERT'), false, `the commit's round trip: ${JSON.stringify(trips[1])}`);
  });

  it("hangs the work on this owner's lease for its own machine's workers only", async () => {
    const url = pgDatabase();
    const owner = engineOn(PgStore.open(url, { ownerId: 'owner-a' }), { id: 'owner-a', host: 'host-a' });
    owner.engine.startBackground();
    await owner.run('worker.add', { id: 'here', host: 'host-a' });
    await owner.run('worker.add', { id: 'there', host: 'host-b' });
    await owner.run('task.add', { id: 'one', title: 'One' });
    await owner.run('task.add', { id: 'two', title: 'Two' });
    assert.equal((await owner.run('claim', { worker: 'here' })).ok, true);
    assert.equal((await owner.run('claim', { worker: 'there' })).ok, true);
    const holders = owner.store.read((reader) => reader.all(`SELECT id, owner_id FROM workers ORDER BY id`));
    assert.deepEqual(holders, [
      { id: 'here', owner_id: 'owner-a' },
      { id: 'there', owner_id: null },
    ]);
  });

  it('refuses a worker that left IDLE while the claim waited for its row, and the task stays queued', async () => {
    const url = pgDatabase();
    const { run, store } = engineOn(PgStore.open(url));
    await run('worker.add', { id: 'ada' });
    await run('task.add', { id: 'only', title: 'Only' });
    // Another session moves the worker and commits only once the claim waits for that row (its
    // transaction lock, not granted), looking at pg_locks, which is live inside a transaction.
    const hold = `BEGIN; UPDATE workers SET state = 'PAUSED' WHERE id = 'ada';
      DO $$ BEGIN
        FOR i IN 1..6000 LOOP
          EXIT WHEN EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted);
          PERFORM pg_sleep(0.01);
        END LOOP;
      END $$;
      COMMIT;`;
    const other = spawn('psql', [url, '-v', 'ON_ERROR_STOP=1', '-c', hold], { stdio: 'ignore' });
    const ended = new Promise<number | null>((resolve) => other.on('exit', resolve));
    const look = new SyncPgClient(url);
    cleanups.push(() => look.close());
    await pollUntil(
      () =>
        Number(
          look.query<{ n: number }>(
            `SELECT COUNT(*) AS n FROM pg_stat_activity WHERE query LIKE '%FOR i IN 1..6000%' AND state = 'active' AND pid <> pg_backend_pid()`,
          ).rows[0]?.n,
        ) > 0,
      { what: 'the other session holding the worker row', timeoutMs: 60_000 },
    );
    const claimed = await run('claim', { worker: 'ada' });
    assert.equal(await ended, 0, 'the other session committed');
    assert.equal(claimed.ok, false);
    assert.equal(!claimed.ok && claimed.code, 'conflict');
    const left = store.read((reader) => ({
      task: reader.all(`SELECT status, attempt, worker_id FROM tasks`),
      transitions: reader.all(`SELECT entity_id FROM transitions WHERE trigger IN ('claim', 'assign')`),
      leases: reader.all(`SELECT task_id FROM task_claims`),
    }));
    assert.deepEqual(left, { task: [{ status: 'queued', attempt: 0, worker_id: null }], transitions: [], leases: [] });
  });
});
