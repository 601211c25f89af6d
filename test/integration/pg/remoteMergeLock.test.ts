/**
 * Merges from two machines under the PostgreSQL merge lock (issue 14 item 3), with real git and a
 * real server: started at once from clones A and B, they run one after the other, the second built
 * on what the first pushed; a merge whose lock connection drops stops before pushing anything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { simpleGit } from 'simple-git';
import { Client } from 'pg';
import { type Result, ok } from '../../../src/core/result';
import { GitWorkspace } from '../../../src/infra/git';
import { PgMergeLock, mergeLockKey } from '../../../src/infra/pg/mergeLock';
import { type TestPostgres, startPostgres } from '../../support/postgres';
import { commitAllIn, revParse, unwrap, writeFile } from '../git/gitFixtures';
import { onlyFastForwards, remoteBaseHistory, sharedRemote } from '../git/remoteFixtures';

let server: TestPostgres;

before(async () => {
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
});

/** Worker `workerId` on `taskId` in `clone` (a machine with its own PostgreSQL merge lock). */
async function machineWithTask(clone: string, workerId: string, taskId: string, file: string) {
  const workspace = new GitWorkspace(clone, { remote: 'origin', mergeLock: new PgMergeLock({ url: server.url }) });
  const worktree = unwrap(await workspace.prepareWorktree({ workerId, taskId, startPoint: 'main' }));
  writeFile(worktree.path, file, `${workerId}\n`);
  await commitAllIn(worktree.path, `task ${taskId}`);
  return { workspace, work: { workerId, taskId, attempt: 1 } };
}

describe('merges across machines under the PostgreSQL merge lock', () => {
  test('two merges started at once from A and B run one after the other, both landing', async () => {
    const { remote, clones } = await sharedRemote();
    const [a = '', b = ''] = clones;
    const machineA = await machineWithTask(a, 'ada', 't1', 'ada.txt');
    const machineB = await machineWithTask(b, 'bob', 't2', 'bob.txt');
    const order: string[] = [];
    const verify = (name: string) => async (): Promise<Result<void>> => {
      order.push(`${name} verifies`);
      // Long enough for the other machine's merge to be waiting on the lock, were it not held.
      await new Promise((resolve) => setTimeout(resolve, 300));
      order.push(`${name} verified`);
      return ok(undefined);
    };
    const [mergedA, mergedB] = await Promise.all([
      machineA.workspace.merge({ ...machineA.work, base: 'main', strategy: 'rebase', verify: verify('A') }),
      machineB.workspace.merge({ ...machineB.work, base: 'main', strategy: 'rebase', verify: verify('B') }),
    ]);
    const outcomes = [unwrap(mergedA), unwrap(mergedB)];
    // Never interleaved: each verify ends before the other begins.
    assert.equal(order.length, 4);
    assert.equal(order[0]?.split(' ')[0], order[1]?.split(' ')[0]);
    assert.equal(order[2]?.split(' ')[0], order[3]?.split(' ')[0]);
    // The second was built on what the first pushed (its fetch ran inside the lock): no baseMoved.
    const [firstOut, secondOut] = order[0]?.startsWith('A') ? outcomes : [...outcomes].reverse();
    assert.equal(secondOut?.baseBefore, firstOut?.baseAfter);
    assert.equal(await revParse(remote, 'refs/heads/main'), secondOut?.baseAfter);
    const files = await simpleGit(remote).raw(['ls-tree', '--name-only', 'main']);
    assert.match(files, /ada\.txt/);
    assert.match(files, /bob\.txt/);
    assert.deepEqual(await remoteBaseHistory(remote), [firstOut?.baseAfter, secondOut?.baseAfter]);
    assert.equal(await onlyFastForwards(remote), true);
  });

  test('a merge that loses its lock connection stops before pushing', async () => {
    const { remote, clones } = await sharedRemote(1);
    const [a = ''] = clones;
    const machineA = await machineWithTask(a, 'ada', 't1', 'ada.txt');
    const mainBefore = await revParse(remote, 'refs/heads/main');
    const admin = new Client({ connectionString: server.url });
    await admin.connect();
    try {
      const result = await machineA.workspace.merge({
        ...machineA.work,
        base: 'main',
        strategy: 'rebase',
        // The server drops the lock's connection while the tip is being verified.
        verify: async () => {
          await admin.query(
            `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::int4::oid AND objid = $2::int4::oid AND granted`,
            [mergeLockKey.namespace, mergeLockKey.id],
          );
          return ok(undefined);
        },
      });
      assert.deepEqual(!result.ok && [result.kind, result.code], ['refused', 'mergeLockLost']);
      assert.equal(await revParse(remote, 'refs/heads/main'), mainBefore);
      // Nothing was lost: the task's commit is still on its branch, ready for the next try.
      assert.equal(await simpleGit(a).show(['ada/t1:ada.txt']), 'ada\n');
      const retried = unwrap(await machineA.workspace.merge({ ...machineA.work, base: 'main', strategy: 'rebase' }));
      assert.equal(await revParse(remote, 'refs/heads/main'), retried.baseAfter);
    } finally {
      await admin.end();
    }
  });

  test('a machine that cannot reach PostgreSQL refuses to merge, changing nothing', async () => {
    const { remote, clones } = await sharedRemote(1);
    const [a = ''] = clones;
    const url = new URL(server.url);
    url.port = String(server.port === 1 ? 2 : 1);
    const workspace = new GitWorkspace(a, {
      remote: 'origin',
      mergeLock: new PgMergeLock({ url: url.toString(), connectTimeoutMs: 2000 }),
    });
    const worktree = unwrap(await workspace.prepareWorktree({ workerId: 'ada', taskId: 't1', startPoint: 'main' }));
    writeFile(worktree.path, 'ada.txt', 'ada\n');
    await commitAllIn(worktree.path, 'task t1');
    const mainBefore = await revParse(remote, 'refs/heads/main');
    const result = await workspace.merge({ workerId: 'ada', taskId: 't1', attempt: 1, base: 'main', strategy: 'rebase' });
    assert.deepEqual(!result.ok && [result.kind, result.code], ['refused', 'mergeLockUnavailable']);
    assert.equal(await revParse(remote, 'refs/heads/main'), mainBefore);
  });
});
