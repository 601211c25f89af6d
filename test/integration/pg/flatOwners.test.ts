/**
 * Owner costs stay flat as machines join (issue 29, finding 6), on a real PostgreSQL: another
 * owner's heartbeats wake nothing here (no notification heard, no read, no dispatch, no view
 * event) and a view still sees them, on its timer; a claim elsewhere runs no dispatcher here, while
 * a task queued elsewhere does; and ten owners started at once on a new database all open, though
 * the migration they wait for outlasts their statement timeout.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { CommandInput, CommandName } from '../../../src/core/requests';
import type { Result } from '../../../src/core/result';
import { Engine } from '../../../src/engine/engine';
import { remoteChangesPollMs } from '../../../src/engine/externalChanges';
import type { ChangedRows, Reader, Store, Tx, WriteOptions } from '../../../src/engine/ports';
import * as q from '../../../src/engine/queries';
import { defaultEngineSettings } from '../../../src/engine/settings';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../../../src/infra/fs';
import { migrations } from '../../../src/infra/db/migrations/index';
import { GitPortAdapter } from '../../../src/infra/git/gitPort';
import { PgListener } from '../../../src/infra/pg/listener';
import type { ChangeNotice } from '../../../src/infra/pg/notice';
import { migrationLock } from '../../../src/infra/pg/pgMigrations';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { SyncPgClient } from '../../../src/infra/pg/syncClient';
import { ManualClock } from '../../support/manualClock';
import { pollUntil } from '../../support/pollUntil';
import { postgresPerFile } from '../../support/postgresPerFile';
import { openOwnerEngine } from './ownerEngine';

const run = promisify(execFile);
const pg = postgresPerFile('flat');

const database = (): string => pg.database();

/** The store of the owner under watch: every transaction and read it makes is counted. */
class CountingStore implements Store {
  writes = 0;
  reads = 0;
  constructor(private readonly inner: PgStore) {}
  get dialect(): Store['dialect'] {
    return this.inner.dialect;
  }
  read<T>(fn: (reader: Reader) => T): T {
    this.reads++;
    return this.inner.read(fn);
  }
  write<T>(fn: (tx: Tx) => Result<T>, options?: WriteOptions): Result<T> {
    this.writes++;
    return this.inner.write(fn, options);
  }
  checkpoint(): void {
    this.inner.checkpoint();
  }
  close(): void {
    this.inner.close();
  }
}

/**
 * Owner B, as `foreman serve` wires one (listener, lease, waker, dispatcher, monitor) plus a view,
 * on the test clock: its own timers run only when the test moves the clock, so everything it does
 * meanwhile was caused by what it heard.
 */
async function watchedOwner(url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'foreman-flat-b-'));
  pg.closeAfter(() => rmSync(dir, { recursive: true, force: true }));
  const foremanDir = join(dir, '.foreman');
  const store = new CountingStore(PgStore.open(url, { ownerId: 'owner-b' }));
  const clock = new ManualClock(Date.now());
  const engine = new Engine({
    store,
    settings: defaultEngineSettings,
    blobs: new FileBlobStore(join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    archive: new FileArchiveSink(foremanDir),
    git: new GitPortAdapter(dir, () => 'main', { branchTemplate: defaultEngineSettings.branchTemplate }),
    crew: { mergeStrategy: 'rebase' },
    clock,
    owner: { id: 'owner-b', host: 'host-b' },
  });
  pg.closeAfter(() => {
    engine.dispose();
    store.close();
  });
  const heard: ChangeNotice[] = [];
  /** B's counts as each notice arrived, before B did anything about it. */
  const countsAt: Counts[] = [];
  const seen: Array<ChangedRows | undefined> = [];
  const listener = new PgListener(url, {
    self: 'owner-b',
    onChange: (notice) => {
      countsAt.push({ writes: store.writes, reads: store.reads, heard: heard.length, seen: seen.length });
      heard.push(notice);
      engine.noteExternalChange(notice.changed);
    },
  });
  pg.closeAfter(() => listener.close());
  engine.onDidChangeExternally((changed) => seen.push(changed));
  await listener.ready;
  engine.startBackground();
  return { engine, store, clock, heard, countsAt, seen };
}

/** Lets the event loop run until `what` holds, then a few turns more so that follow-up work is done too. */
async function settle(what: string, check: () => boolean): Promise<void> {
  await pollUntil(check, { what, timeoutMs: 20_000, intervalMs: 10 });
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

interface Counts {
  readonly writes: number;
  readonly reads: number;
  readonly heard: number;
  readonly seen: number;
}

function counts(b: Awaited<ReturnType<typeof watchedOwner>>): Counts {
  return { writes: b.store.writes, reads: b.store.reads, heard: b.heard.length, seen: b.seen.length };
}

async function ok<T>(result: Promise<Result<T>>): Promise<T> {
  const settled = await result;
  if (!settled.ok) throw new Error(settled.message);
  return settled.value;
}

/** Owner A, registered on its host as a running owner is (its `owners` row), on the system clock. */
function ownerA(url: string) {
  const a = openOwnerEngine(url, { id: 'owner-a', host: 'host-a' });
  pg.closeAfter(() => a.close());
  a.store.write((tx) => {
    q.upsertOwner(tx, { id: 'owner-a', host: 'host-a', pid: null }, Date.now(), Date.now() + 600_000);
    return { ok: true as const, value: undefined };
  });
  const run = <C extends CommandName>(command: C, args: CommandInput<C>) => ok(a.run(command, args));
  return { a, run };
}

/**
 * Waits until B hears a notice `named` names, and returns B's counts as it arrived, before B did
 * anything about it. Notifications arrive in commit order: whatever A sent before it was heard then.
 */
async function countsAtNotice(
  b: Awaited<ReturnType<typeof watchedOwner>>,
  from: number,
  what: string,
  named: (changed: ChangedRows) => boolean,
): Promise<Counts> {
  const index = await pollUntil(
    () => {
      const found = b.heard.findIndex((notice, at) => at >= from && notice.changed !== undefined && named(notice.changed));
      return found >= 0 ? found + 1 : undefined;
    },
    { what, timeoutMs: 20_000, intervalMs: 10 },
  );
  const at = b.countsAt[index - 1];
  if (!at) throw new Error(`bug: ${what} without counts`);
  return at;
}

describe('owner costs as machines join', () => {
  it("another owner's heartbeats and claims wake nothing here; a view reads them on its timer", async () => {
    const url = database();
    const { a, run: runA } = ownerA(url);
    const b = await watchedOwner(url);

    await runA('worker.add', { id: 'ada', host: 'host-a' });
    await runA('task.add', { id: 'first', title: 'first task' });
    await settle("B heard A's task", () => b.heard.some((notice) => notice.changed?.tasks.includes('first')));
    // B's view looks once: its baseline.
    b.clock.advance(remoteChangesPollMs);
    const before = counts(b);

    // A's claim of its own machine's worker, and 20 heartbeats: nothing another owner acts on.
    await runA('claim', { worker: 'ada' });
    for (let beat = 1; beat <= 20; beat++) await runA('heartbeat', { worker: 'ada', status: 'working', progress: beat / 20 });
    const beat = a.store.read((reader) => q.listBeatsOf(reader, ['ada']))[0];
    assert.equal(beat?.progress, 1, 'the beats were written');
    const sentinel = a.store.write(
      (tx) => {
        tx.run(`UPDATE tasks SET title = 'first task, renamed' WHERE id = 'first'`);
        return { ok: true as const, value: undefined };
      },
      // It names a task that is not there: B's view reads nothing for it.
      { changed: () => ({ workers: [], tasks: ['sentinel'], mayHaveWork: false, liveness: [] }) },
    );
    assert.equal(sentinel.ok, true);
    const after = await countsAtNotice(b, before.heard, 'B heard the sentinel', (changed) => changed.tasks.includes('sentinel'));
    assert.equal(after.heard - before.heard, 0, 'B heard nothing of the claim or the 20 heartbeats before the sentinel');
    assert.equal(after.writes - before.writes, 0, 'B wrote nothing for them: no dispatcher, no monitor');
    assert.equal(after.reads - before.reads, 0, 'B read nothing for them');
    assert.equal(after.seen - before.seen, 0, 'no view event for them');

    // The view's timer reads what was not announced: ada's beats and the claim's transitions.
    const seenBefore = b.seen.length;
    b.clock.advance(remoteChangesPollMs);
    const announced = b.seen.slice(seenBefore);
    assert.equal(announced.length, 1);
    assert.deepEqual(new Set(announced[0]?.workers), new Set(['ada']));
    assert.deepEqual(announced[0]?.tasks, ['first'], 'the claimed task, from its transition');
    assert.equal(announced[0]?.mayHaveWork, false, 'what the timer finds runs no dispatcher');
  });

  it("a claim for another machine's worker is announced to it without waking its dispatcher; a queued task does wake it", async () => {
    const url = database();
    const { a, run: runA } = ownerA(url);
    const b = await watchedOwner(url);
    await runA('worker.add', { id: 'ada', host: 'host-a' });
    await runA('worker.add', { id: 'bob', host: 'host-b' });
    // Manual tasks are never handed out by a dispatcher: they are assigned by hand.
    await runA('task.add', { id: 'for-ada', title: 'for ada', manual: true });
    await runA('task.add', { id: 'for-bob', title: 'for bob', manual: true });
    await settle('B heard the tasks', () => b.heard.some((notice) => notice.changed?.tasks.includes('for-bob')));
    const before = counts(b);

    await runA('assign', { worker: 'ada', task: 'for-ada' });
    await runA('assign', { worker: 'bob', task: 'for-bob' });
    const after = await countsAtNotice(b, before.heard, "B heard of bob's assignment", (changed) => changed.tasks.includes('for-bob'));
    assert.equal(after.heard - before.heard, 0, "ada's assignment, on A's machine, was not announced before bob's");
    assert.equal(after.writes - before.writes, 0, "B's dispatcher did not run");
    assert.equal(after.reads - before.reads, 0);
    const assigned = b.heard[after.heard]?.changed;
    assert.equal(assigned?.mayHaveWork, false, 'an assignment makes no work runnable');
    assert.deepEqual(assigned?.hosts, ['host-b'], 'the notice names the host of the worker it moved: B looks at it');
    assert.deepEqual(assigned?.liveness, [], 'an ASSIGNED worker has no deadline to read');

    const beforeQueued = counts(b);
    await runA('task.add', { id: 'for-anyone', title: 'for anyone' });
    await settle('B heard the queued task', () => b.heard.some((notice) => notice.changed?.tasks.includes('for-anyone')));
    await pollUntil(() => b.store.writes > beforeQueued.writes, { what: "B's dispatcher ran for the queued task", timeoutMs: 20_000 });
    await runA('worker.add', { id: 'cy', host: 'host-b' });
    await pollUntil(() => a.store.read((reader) => q.findWorker(reader, 'cy'))?.task_id === 'for-anyone', {
      what: "B's dispatcher handed the task to its own new worker",
      timeoutMs: 20_000,
    });
  });

  it('ten owners started at once on a new database all open, though the migration outlasts their statement timeout', async () => {
    const url = database();
    const database_ = new URL(url).pathname.slice(1);
    // Another owner is migrating, slowly: it holds the migration lock (pgMigrations.ts) for twice
    // the statement timeout the ten are started with. Each waits its turn instead of failing.
    const statementTimeoutMs = 1_500;
    const holder = new SyncPgClient(url);
    pg.closeAfter(() => holder.close());
    holder.query('SELECT pg_advisory_lock($1)', [migrationLock]);
    const child = join(__dirname, 'openStoreChild.ts');
    const owners = Array.from({ length: 10 }, (_, i) =>
      run(process.execPath, ['--import', 'tsx', child, url, `owner-${i}`, String(statementTimeoutMs)], { timeout: 180_000 }).then(
        ({ stdout }) => stdout.trim(),
        (error: { stdout?: string; stderr?: string; message: string }) => `failed: ${error.stderr || error.stdout || error.message}`,
      ),
    );
    const admin = new SyncPgClient(pg.server().url);
    pg.closeAfter(() => admin.close());
    await pollUntil(
      () =>
        Number(admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database_]).rows[0]?.n) >=
        11,
      { what: 'the ten owners connected, waiting for the migration', timeoutMs: 120_000, intervalMs: 100 },
    );
    await new Promise((resolve) => setTimeout(resolve, 2 * statementTimeoutMs));
    holder.query('SELECT pg_advisory_unlock($1)', [migrationLock]);
    const outputs = await Promise.all(owners);
    assert.deepEqual(
      outputs,
      Array.from({ length: 10 }, () => 'opened'),
      outputs.filter((output) => output !== 'opened').join('\n'),
    );
    const store = PgStore.open(url);
    pg.closeAfter(() => store.close());
    const version = store.read((reader) => reader.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`));
    assert.equal(Number(version?.value), migrations.at(-1)?.version, 'migrated once, to the latest version');
  });
});
