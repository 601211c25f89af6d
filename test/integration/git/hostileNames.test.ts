import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { hostileNames } from '../../support/hostileNames';
import { simpleGit } from 'simple-git';
import { GitWorkspace, branchFor, snapshotWip, validateBranchName, wipRefFor } from '../../../src/infra/git';
import { allRefs, makeRepo, unwrap } from './gitFixtures';

const pwned = '/tmp/pwned';
const hostile = [...hostileNames, 'A1', 'a/b', '../up', ''];

test('hostile worker and task ids are refused and nothing is created', async () => {
  assert.equal(existsSync(pwned), false, 'a previous run left /tmp/pwned; remove it first');
  const { root } = await makeRepo();
  const workspace = new GitWorkspace(root);
  const refsBefore = await allRefs(root);
  const worktreesBefore = await simpleGit(root).raw(['worktree', 'list', '--porcelain']);
  for (const id of hostile) {
    for (const request of [
      { workerId: id, taskId: 't1', startPoint: 'main' },
      { workerId: 'w1', taskId: id, startPoint: 'main' },
    ]) {
      const result = await workspace.prepareWorktree(request);
      assert.equal(result.ok, false, `accepted ${JSON.stringify(request)}`);
      assert.equal(!result.ok && result.kind, 'invalid', `${JSON.stringify(id)}: ${!result.ok ? result.code : ''}`);
    }
    const snapshot = await snapshotWip({ worktreePath: root, taskId: id, attempt: 1 });
    assert.equal(!snapshot.ok && snapshot.kind, 'invalid');
    assert.equal(wipRefFor(id, 1).ok, false);
  }
  const badStart = await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: '--upload-pack=touch /tmp/pwned' });
  assert.equal(!badStart.ok && badStart.code, 'invalidStartPoint');
  assert.equal(await allRefs(root), refsBefore);
  assert.equal(await simpleGit(root).raw(['worktree', 'list', '--porcelain']), worktreesBefore);
  assert.equal(existsSync(join(dirname(root), '.foreman-worktrees')), false);
  assert.equal(existsSync(pwned), false);
});

test('hostile branch templates are refused and nothing is created', async () => {
  const { root } = await makeRepo();
  const refsBefore = await allRefs(root);
  const templates = [
    '$(touch /tmp/pwned)/{task}',
    '{worker}/$(touch /tmp/pwned){task}',
    '--upload-pack=x{task}',
    '-{task}',
    '{worker}..{task}',
    '{worker}/{task}.lock',
    `${'a'.repeat(400)}/{task}`,
    '{worker}/{task} x',
    '{worker}@{{task}',
    '{worker}/{task}/',
    '{worker}//{task}',
    '{worker}/.{task}',
    '{worker}/{tasks}',
    '{worker}',
    '{worker}/{task}~1',
    '{worker}/{task}:x',
  ];
  for (const template of templates) {
    const workspace = new GitWorkspace(root, { branchTemplate: template });
    const result = await workspace.prepareWorktree({ workerId: 'w1', taskId: 't1', startPoint: 'main' });
    assert.equal(!result.ok && result.kind, 'invalid', `accepted template ${template}`);
    assert.ok(!result.ok && ['invalidBranchTemplate', 'invalidBranchName'].includes(result.code), template);
  }
  assert.equal(await allRefs(root), refsBefore);
  assert.equal(existsSync(pwned), false);
});

test('ordinary templates produce names git accepts', async () => {
  const { git } = await makeRepo();
  const cases: Array<[string, string]> = [
    ['{worker}/{task}', 'w1/t-9'],
    ['foreman/{worker}/{task}', 'foreman/w1/t-9'],
    ['ai_{task}', 'ai_t-9'],
    ['{task}.{worker}', 't-9.w1'],
  ];
  for (const [template, expected] of cases) {
    const name = unwrap(branchFor(template, { workerId: 'w1', taskId: 't-9' }));
    assert.equal(name, expected);
    assert.equal(unwrap(await validateBranchName(git, name)), expected);
  }
});

test('validateBranchName asks git after the cheap check', async () => {
  const { git } = await makeRepo();
  for (const name of ['a..b', '-x', 'x.lock', 'a b', 'a~1', '@{-1}', 'HEAD', 'a'.repeat(201), 'a/.b', 'a\u0001b']) {
    const result = await validateBranchName(git, name);
    assert.equal(!result.ok && result.code, 'invalidBranchName', JSON.stringify(name));
  }
});
