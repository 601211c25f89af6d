/**
 * Merge from any machine, any number of times (issue 29, finding 1), through the engine: two owners
 * (machine-a, machine-b) on one real PostgreSQL store, each with its own clone of a bare remote and
 * the PostgreSQL merge lock. A worker's tasks are done on its machine and merged from the other:
 * three in a row of one worker, a chain whose steps ran on alternate machines, a task fixed after a
 * failed merge had rebased the merging machine's copy, and a worker of any host. Each merge lands
 * on the remote's main by a fast-forward, built on the one before.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { simpleGit } from 'simple-git';
import { type CommandInput, type CommandName, parseCommand } from '../../../src/core/requests';
import { type Result, ok, refused } from '../../../src/core/result';
import { Engine } from '../../../src/engine/engine';
import type { ResultOf } from '../../../src/core/requests';
import { defaultEngineSettings } from '../../../src/engine/settings';
import { FileArchiveSink, FileBlobStore, JsonlExportSink } from '../../../src/infra/fs';
import { GitPortAdapter } from '../../../src/infra/git/gitPort';
import { PgMergeLock } from '../../../src/infra/pg/mergeLock';
import { PgStore } from '../../../src/infra/pg/pgStore';
import { SyncPgClient } from '../../../src/infra/pg/syncClient';
import { postgresPerFile } from '../../support/postgresPerFile';
import { commitAllIn, readFile, statusOf, writeFile } from '../git/gitFixtures';
import { onlyFastForwards, remoteBaseHistory, sharedRemote } from '../git/remoteFixtures';

const pg = postgresPerFile('cross_merge');

/** One machine: an owner's engine (no agents) on the shared store, over its own clone. */
interface Machine {
  readonly host: string;
  readonly git: GitPortAdapter;
  run<C extends CommandName>(command: C, args: CommandInput<C>): Promise<Result<ResultOf<C>>>;
}

/** The verify command's verdict on a merged tip: machine-b's can be made to fail. */
type Verify = (worktree: string) => Promise<Result<void>>;

function openMachine(url: string, clone: string, host: string, verify?: Verify): Machine {
  const foremanDir = mkdtempSync(join(tmpdir(), `foreman-${host}-`));
  const owner = { id: `owner-${host}`, host };
  const store = PgStore.open(url, { ownerId: owner.id });
  const git = new GitPortAdapter(clone, () => 'main', { remote: 'origin', mergeLock: new PgMergeLock({ url }) });
  const engine = new Engine({
    store,
    settings: defaultEngineSettings,
    blobs: new FileBlobStore(join(foremanDir, 'blobs')),
    exports: new JsonlExportSink(foremanDir),
    archive: new FileArchiveSink(foremanDir),
    git,
    crew: { mergeStrategy: 'rebase', ...(verify ? { verify } : {}) },
    owner,
  });
  pg.closeAfter(() => {
    engine.dispose();
    store.close();
  });
  return {
    host,
    git,
    run(command, args) {
      const parsed = parseCommand(command, args, { actor: `person-${host}` });
      if (!parsed.ok) throw new Error(parsed.message);
      return engine.execute(parsed.request);
    },
  };
}

function succeeded<T>(result: Result<T>, what: string): T {
  if (!result.ok) assert.fail(`${what}: ${result.code}: ${result.message}`);
  return result.value;
}

/** Two machines on a fresh database, a bare remote and a clone each; a1 works on A, b1 on B. */
async function team(verifyOnB?: Verify): Promise<{ url: string; remote: string; a: Machine; b: Machine }> {
  const url = pg.database();
  const { remote, clones } = await sharedRemote();
  const a = openMachine(url, clones[0] ?? '', 'machine-a');
  const b = openMachine(url, clones[1] ?? '', 'machine-b', verifyOnB);
  succeeded(await a.run('worker.add', { id: 'a1' }), 'add a1');
  succeeded(await b.run('worker.add', { id: 'b1' }), 'add b1');
  return { url, remote, a, b };
}

/**
 * `worker` does `task` on `machine`, its own: started there (its worktree prepared), one commit
 * appending `line` to chain.txt, submitted, and its branch pushed as that owner does on submit.
 */
async function work(machine: Machine, worker: string, task: string, line: string, attempt = 1): Promise<void> {
  succeeded(await machine.run('assign', { worker, task }), `assign ${task} to ${worker}`);
  const started = succeeded(await machine.run('start', { worker }), `start ${worker} on ${machine.host}`);
  const worktree = started.worktree;
  const before = readFileOr(worktree, 'chain.txt');
  writeFile(worktree, 'chain.txt', `${before}${line}\n`);
  writeFile(worktree, `${task}.txt`, `${line}\n`);
  await commitAllIn(worktree, `${task}: ${line}`);
  succeeded(await machine.run('submit', { worker, summary: line }), `submit ${task}`);
  const branch = `${worker}/${task}`;
  succeeded(await machine.git.publish({ workerId: worker, taskId: task, attempt, branch }), `push ${branch}`);
}

/** Approved and merged from `machine`, which is not the worker's. */
async function mergeFrom(machine: Machine, worker: string, task: string): Promise<string> {
  succeeded(await machine.run('approve', { worker }), `approve ${worker}`);
  const merged = succeeded(await machine.run('merge', { worker }), `merge ${task} of ${worker} from ${machine.host}`);
  assert.equal(merged.merged?.taskId, task);
  return merged.merged?.baseAfter ?? '';
}

function readFileOr(folder: string, name: string): string {
  try {
    return readFile(folder, name);
  } catch {
    return '';
  }
}

/** What a machine's worktree for `worker` holds: branch, head, status (to see it untouched). */
async function worktreeState(machine: Machine, worker: string): Promise<string> {
  const path = machine.git.worktreePath(worker);
  const git = simpleGit(path);
  return JSON.stringify([
    (await git.raw(['symbolic-ref', '--short', 'HEAD'])).trim(),
    (await git.revparse(['HEAD'])).trim(),
    await statusOf(path),
  ]);
}

describe('merges from another machine than the worker`s (PostgreSQL, two clones)', () => {
  test('three tasks of a1 in a row, done on machine-a, merge from machine-b', async () => {
    const { remote, a, b } = await team();
    const merges: string[] = [];
    for (const [index, task] of ['one', 'two', 'three'].entries()) {
      succeeded(await a.run('task.add', { id: task, title: `Task ${task}` }), `add ${task}`);
      await work(a, 'a1', task, `line ${index + 1}`);
      const onA = await worktreeState(a, 'a1');
      merges.push(await mergeFrom(b, 'a1', task));
      assert.equal(await worktreeState(a, 'a1'), onA, `machine-a's worktree untouched by the merge of ${task}`);
    }
    assert.deepEqual(await remoteBaseHistory(remote), merges, 'one update of main per task, in order');
    assert.equal(await simpleGit(remote).show(['main:chain.txt']), 'line 1\nline 2\nline 3\n');
    assert.equal(await onlyFastForwards(remote), true);
  });

  test('a chain whose steps ran on alternate machines, each merged from the other one', async () => {
    const { remote, a, b } = await team();
    const chain = succeeded(
      await a.run('chain.add', { name: 'Three steps', steps: [{ title: 'Step one' }, { title: 'Step two' }, { title: 'Step three' }] }),
      'add the chain',
    );
    const steps = chain.children.map((child) => child.id);
    assert.deepEqual(steps, ['three-steps-1', 'three-steps-2', 'three-steps-3']);
    // Step one on machine-a, two on machine-b, three on machine-a again; each merged from the other.
    const plan = [
      { worker: 'a1', doer: a, merger: b },
      { worker: 'b1', doer: b, merger: a },
      { worker: 'a1', doer: a, merger: b },
    ];
    const merges: string[] = [];
    for (const [index, { worker, doer, merger }] of plan.entries()) {
      const task = steps[index] ?? '';
      await work(doer, worker, task, `step ${index + 1} on ${doer.host}`);
      merges.push(await mergeFrom(merger, worker, task));
    }
    assert.deepEqual(await remoteBaseHistory(remote), merges);
    assert.equal(
      await simpleGit(remote).show(['main:chain.txt']),
      'step 1 on machine-a\nstep 2 on machine-b\nstep 3 on machine-a\n',
      'each step built on the one before',
    );
    assert.equal(await onlyFastForwards(remote), true);
    const status = succeeded(await a.run('status', {}), 'status');
    for (const id of steps) assert.equal(status.tasks.find((row) => row.id === id)?.status, 'done', id);
  });
  test('a copy machine-b rebased in a failed merge gives way to what machine-a pushed since', async () => {
    let verdict: Result<void> = refused('testsFail', 'the tests fail on the merged tip');
    const { remote, a, b } = await team(() => Promise.resolve(verdict));
    succeeded(await a.run('task.add', { id: 'one', title: 'Task one' }), 'add one');
    await work(a, 'a1', 'one', 'first draft');
    // Someone pushes to main before machine-b merges a1's task: its attempt rebases its copy of the
    // branch, then fails verify.
    const person = simpleGit(b.git.workspace.repoRoot);
    writeFile(b.git.workspace.repoRoot, 'notes.txt', 'pushed by a person\n');
    await commitAllIn(b.git.workspace.repoRoot, 'notes');
    await person.raw(['push', '--quiet', 'origin', 'main']);
    succeeded(await b.run('approve', { worker: 'a1' }), 'approve a1');
    const failed = await b.run('merge', { worker: 'a1' });
    assert.deepEqual(!failed.ok && failed.code, 'verifyFailed');

    // The task goes back to a1 on machine-a, which adds a fix to the same branch and pushes it.
    succeeded(await a.run('cancel', { target: 'a1' }), 'cancel a1');
    succeeded(await a.run('retry', { task: 'one' }), 'retry one');
    await work(a, 'a1', 'one', 'fixed draft', 2);
    verdict = ok(undefined);
    const merged = await mergeFrom(b, 'a1', 'one');
    assert.equal(await simpleGit(remote).show([`${merged}:one.txt`]), 'fixed draft\n', 'the fix was merged, not the old copy');
    assert.equal(await onlyFastForwards(remote), true);
  });
  test('a worker of any host, its tasks done on machine-a, merges from machine-b task after task', async () => {
    const { url, remote, a, b } = await team();
    succeeded(await a.run('worker.add', { id: 'any1' }), 'add any1');
    // A worker added while the store was one machine's has no host: any owner may run it.
    const sql = new SyncPgClient(url);
    try {
      sql.query(`UPDATE workers SET host = NULL WHERE id = 'any1'`);
    } finally {
      sql.close();
    }
    const merges: string[] = [];
    for (const task of ['first', 'second']) {
      succeeded(await a.run('task.add', { id: task, title: `Task ${task}` }), `add ${task}`);
      await work(a, 'any1', task, `${task} line`);
      merges.push(await mergeFrom(b, 'any1', task));
    }
    assert.deepEqual(await remoteBaseHistory(remote), merges);
    assert.equal(await simpleGit(remote).show(['main:chain.txt']), 'first line\nsecond line\n');
  });
});
