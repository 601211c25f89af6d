import assert from 'node:assert/strict';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { GitWorkspace, ensureWorktree, listWorktrees, verifyWorktreeTopLevel } from '../../../src/infra/git';
import { allRefs, branchOf, makeRepo, readFile, revParse, statusOf, unwrap, writeFile } from './gitFixtures';

test('creates the worker worktree outside the repository and reuses it for the next task', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const first = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  assert.equal(first.path, join(dirname(root), '.foreman-worktrees', 'repo', 'w1'));
  assert.equal(first.branch, 'w1/t1');
  assert.ok(first.created && first.branchCreated);
  assert.equal(readFile(first.path, 'a.txt'), 'alpha\n');
  assert.ok(!first.path.startsWith(`${root}/`));

  const again = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  assert.equal(again.created, false);
  assert.equal(again.branchCreated, false);

  const second = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't2', startPoint: 'main' }));
  assert.equal(second.path, first.path);
  assert.equal(second.created, false);
  assert.equal(second.branch, 'w1/t2');
  assert.equal(await branchOf(first.path), 'w1/t2');
  assert.equal((await listWorktrees(root)).filter((entry) => !entry.main).length, 1);
  assert.match(await allRefs(root), /refs\/heads\/w1\/t1 /);
  assert.match(await allRefs(root), /refs\/heads\/w1\/t2 /);
});

test('top-level verification accepts a worktree and refuses a plain folder inside the main checkout', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const created = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  assert.equal(unwrap(await verifyWorktreeTopLevel(created.path)), created.path);
  assert.equal(unwrap(await workspace.verifyWorktree('w1')), created.path);

  mkdirSync(join(root, 'sub'));
  const inside = await verifyWorktreeTopLevel(join(root, 'sub'));
  assert.equal(inside.ok, false);
  assert.equal(!inside.ok && inside.code, 'notAWorktree');
  const missing = await verifyWorktreeTopLevel(join(root, 'nope'));
  assert.equal(!missing.ok && missing.code, 'worktreeMissing');
});

test('a dirty worktree is snapshotted and not switched to the next task', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const { path } = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  writeFile(path, 'a.txt', 'edited\n');
  writeFile(path, 'new.txt', 'untracked\n');
  const before = await statusOf(path);

  const refused = await workspace.prepareWorktree({
    workerId: 'w1',
    taskId: 't2',
    startPoint: 'main',
    current: { taskId: 't1', attempt: 1 },
  });
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.code, 'dirtyWorktree');
  assert.equal(!refused.ok && refused.details?.['wipRef'], 'refs/foreman/wip/t1/1');
  assert.equal(await statusOf(path), before);
  assert.equal(await branchOf(path), 'w1/t1');
  assert.doesNotMatch(await allRefs(root), /refs\/heads\/w1\/t2/);
  const [wip] = await workspace.listWip();
  assert.deepEqual(wip?.files, ['a.txt', 'new.txt']);
});

test('refuses to treat the main checkout or an occupied folder as a worker worktree', async () => {
  const { root } = await makeRepo();
  const main = await ensureWorktree({ repoRoot: root, worktreePath: root, branch: 'w1/t1', startPoint: 'main' });
  assert.equal(!main.ok && main.code, 'mainCheckout');
  const occupied = join(dirname(root), 'occupied');
  writeFile(occupied, 'keep.txt', 'mine\n');
  const result = await ensureWorktree({ repoRoot: root, worktreePath: occupied, branch: 'w1/t1', startPoint: 'main' });
  assert.equal(!result.ok && result.code, 'pathOccupied');
  assert.equal(readFile(occupied, 'keep.txt'), 'mine\n');
  const badStart = await ensureWorktree({
    repoRoot: root,
    worktreePath: join(dirname(root), 'x'),
    branch: 'w1/t1',
    startPoint: '--upload-pack=x',
  });
  assert.equal(!badStart.ok && badStart.code, 'invalidStartPoint');
});

test('reconcile reports a worktree folder deleted by hand, and repair recreates it', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const w1 = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  unwrap(await workspace.prepareWorktree({ workerId: 'w2', taskId: 't2', startPoint: 'main' }));
  rmSync(w1.path, { recursive: true, force: true });

  const report = unwrap(await workspace.reconcile(['w1', 'w2', 'w3']));
  assert.deepEqual(
    report.missing.map((entry) => [entry.workerId, entry.registered]),
    [
      ['w1', true],
      ['w3', false],
    ],
  );
  assert.deepEqual(
    report.healthy.map((entry) => entry.workerId),
    ['w2'],
  );

  const switchMissing = await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' });
  assert.equal(!switchMissing.ok && switchMissing.code, 'worktreeMissing');
  const repaired = unwrap(await workspace.repairMissing({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  assert.equal(repaired.path, w1.path);
  assert.equal(repaired.branchCreated, false);
  const after = unwrap(await workspace.reconcile(['w1', 'w2']));
  assert.deepEqual(
    after.healthy.map((entry) => entry.workerId),
    ['w1', 'w2'],
  );
  assert.equal(after.missing.length, 0);
});

test('reconcile reports moved and foreign folders, and a moved worktree can be repaired', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const w1 = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  const w2 = unwrap(await workspace.prepareWorktree({ workerId: 'w2', taskId: 't2', startPoint: 'main' }));
  // w2's folder is moved into w3's place by hand; w4's place holds an unrelated folder.
  renameSync(w2.path, join(dirname(w2.path), 'w3'));
  writeFile(join(dirname(w1.path), 'w4'), 'notes.txt', 'not a worktree\n');

  const report = unwrap(await workspace.reconcile(['w1', 'w2', 'w3', 'w4']));
  assert.deepEqual(
    report.healthy.map((entry) => entry.workerId),
    ['w1'],
  );
  assert.deepEqual(
    report.missing.map((entry) => entry.workerId),
    ['w2'],
  );
  assert.deepEqual(
    report.moved.map((entry) => entry.workerId),
    ['w3'],
  );
  assert.deepEqual(
    report.foreign.map((entry) => entry.workerId),
    ['w4'],
  );

  unwrap(await workspace.repairLink('w3'));
  const after = unwrap(await workspace.reconcile(['w1', 'w3']));
  assert.deepEqual(
    after.healthy.map((entry) => entry.workerId),
    ['w1', 'w3'],
  );
});

test('removing a dirty worktree is refused unless its changes are snapshotted first', async () => {
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const { path } = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  writeFile(path, 'scratch.txt', 'untracked work\n');

  const refused = await workspace.removeWorktree('w1');
  assert.equal(!refused.ok && refused.code, 'dirtyWorktree');
  assert.equal(readFile(path, 'scratch.txt'), 'untracked work\n');

  const removed = unwrap(await workspace.removeWorktree('w1', { taskId: 't1', attempt: 2 }));
  assert.ok(removed.wipSha !== undefined);
  assert.equal(existsSync(path), false);
  assert.equal(await revParse(root, 'refs/foreman/wip/t1/2'), removed.wipSha);
  assert.match(await allRefs(root), /refs\/heads\/w1\/t1 /);
});

test('a worktree inside the main checkout that lost its .git file is refused, not mistaken for the main checkout', async () => {
  const { root } = await makeRepo();
  writeFile(root, '.gitignore', '.foreman/\n');
  const workspace = new GitWorkspace(root, { worktreeRoot: join(root, '.foreman', 'worktrees') });
  const { path } = unwrap(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' }));
  assert.equal(path, join(root, '.foreman', 'worktrees', 'w1'));
  rmSync(join(path, '.git'));
  writeFile(path, 'a.txt', 'agent edit\n');
  const mainStatus = await statusOf(root);
  const refsBefore = await allRefs(root);

  assert.equal(((r) => !r.ok && r.code)(await workspace.verifyWorktree('w1')), 'notAWorktree');
  assert.equal(((r) => !r.ok && r.code)(await workspace.snapshot({ workerId: 'w1', taskId: 't1', attempt: 1 })), 'notAWorktree');
  assert.equal(((r) => !r.ok && r.code)(await workspace.commitLeftovers({ workerId: 'w1', taskId: 't1', attempt: 1 })), 'notAWorktree');
  assert.equal(
    ((r) => !r.ok && r.code)(await workspace.prepareWorktree({ workerId: 'w1', taskId: 't2', startPoint: 'main' })),
    'notAWorktree',
  );
  assert.equal(await statusOf(root), mainStatus);
  assert.equal(await allRefs(root), refsBefore);
  assert.equal(await branchOf(root), 'main');

  const report = unwrap(await workspace.reconcile(['w1']));
  assert.deepEqual(
    report.broken.map((entry) => entry.workerId),
    ['w1'],
  );
  unwrap(await workspace.repairLink('w1'));
  assert.equal(unwrap(await workspace.verifyWorktree('w1')), path);
  assert.equal(await statusOf(path), ' M a.txt\n');
});
