/**
 * What an open pull (or merge) request says back to the agent (issue 32, docs/handoff.md), as
 * scenarios both forges go through (pullRequests.test.ts, mergeRequests.test.ts): the line comments
 * people leave on it (`send-review`, each sent once) and a conflict with its base (`send-failure`,
 * or by itself under `autoFixChecks`). The crew and its scripted forge are forgeHandoff.ts's.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { sandboxPath } from './crewHarness';
import { type ForgeUnderTest, type ScriptedServer, taskOf, withCrew } from './forgeHandoff';

/** Line comments left on the pull request reach the agent's resumed session once each: file, lines, quoted code, comment, author. */
export async function reviewCommentsSent<F extends ScriptedServer>(kind: ForgeUnderTest<F>): Promise<void> {
  await withCrew(kind, { workers: ['w1'], token: kind.goodToken }, async ({ crew, forge, bare }, serve) => {
    await crew.addTask(
      'commented',
      'Commented change',
      'write notes.txt alpha\nappend notes.txt beta\nappend notes.txt gamma\ncommit notes',
    );
    const server = await serve();
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    await crew.ok(['approve', 'w1']);
    // The first comment's body holds directives the demo agent follows on its resumed session.
    kind.comment(forge, 1, {
      path: 'notes.txt',
      startLine: 2,
      line: 3,
      body: 'Say why.\nwrite why.txt because\ncommit explain',
      user: 'alice',
    });
    kind.comment(forge, 1, { path: 'notes.txt', line: 1, body: 'Capitalise this.', user: 'bob' });
    await crew.waitFor('the comments read', (s) => taskOf(s, 'commented').pullRequest?.comments === 2, 20_000, server);
    assert.match(await crew.ok(['status']), /in PR #1 \(.*2 comments\)/);
    assert.equal(crew.worker(await crew.status(), 'w1').state, 'APPROVED', 'comments wait for a person to send them');

    assert.match(await crew.ok(['send-review', 'commented']), /sent 2 comments of pull request #1/);
    const answered = await crew.waitFor(
      'the answer in review',
      (s) => crew.worker(s, 'w1').state === 'IN_REVIEW' && crew.worker(s, 'w1').note !== null,
      30_000,
      server,
    );
    const note = crew.worker(answered, 'w1').note ?? '';
    assert.match(note, /1\. notes\.txt, lines 2-3 \(alice/);
    assert.match(note, /2 \| beta\n3 \| gamma/);
    assert.match(note, /Say why\./);
    assert.match(note, /2\. notes\.txt, line 1 \(bob/);
    assert.match(note, /1 \| alpha/);
    assert.match(note, /Capitalise this\./);
    assert.ok((await crew.transitions()).some((t) => t.trigger === 'reviewComments' && t.entity_id === 'w1'));
    assert.equal(taskOf(answered, 'commented').pullRequest?.comments, 0, 'nothing left to send');

    // Each comment is sent once.
    const again = await crew.foreman(['send-review', 'commented']);
    assert.equal(again.code, 3, again.stdout + again.stderr);
    assert.match(again.stderr, /no line comments that were not sent/);

    // The answer goes to the same pull request; a new comment is counted, the old ones are not.
    await crew.ok(['approve', 'w1']);
    assert.equal(kind.count(forge), 1, `the answer went to the same ${kind.requestName}`);
    const branch = kind.request(forge, 1)?.head ?? '';
    assert.match(execFileSync('git', ['ls-tree', '--name-only', branch], { cwd: bare, encoding: 'utf8' }), /why\.txt/);
    kind.comment(forge, 1, { path: 'why.txt', line: 1, body: 'Thanks.', user: 'alice' });
    await crew.waitFor('the new comment read', (s) => taskOf(s, 'commented').pullRequest?.comments === 1, 20_000, server);
  });
}

/**
 * A pull request that conflicts with its base (someone else's commit on `main` on the forge) is
 * shown on the task and sent to the agent, naming the base branch: by `send-failure`, or by itself
 * under `autoFixChecks`.
 */
export async function conflictSent<F extends ScriptedServer>(kind: ForgeUnderTest<F>, options: { automatic: boolean }): Promise<void> {
  const crewOptions = { workers: ['w1'], token: kind.goodToken, ...(options.automatic ? { autoFixChecks: 1 } : {}) };
  await withCrew(kind, crewOptions, async ({ crew, bare }, serve) => {
    await crew.addTask('clash', 'Clashing change', 'write clash.txt ours\ncommit clash');
    const server = await serve();
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    commitOnForge(bare, 'main', 'clash.txt', 'theirs\n', 'their clash');
    await crew.ok(['approve', 'w1']);
    if (!options.automatic) {
      await crew.waitFor('the conflict read', (s) => taskOf(s, 'clash').pullRequest?.conflict === 'main', 20_000, server);
      assert.match(await crew.ok(['status']), /in PR #1 \(.*conflicts with main/);
      assert.equal(crew.worker(await crew.status(), 'w1').state, 'APPROVED', 'nothing sent without autoFixChecks');
      assert.match(await crew.ok(['send-failure', 'clash']), /the conflict with main on pull request #1/);
    }
    const sent = await crew.waitFor(
      'the conflict sent to the agent',
      (s) => crew.worker(s, 'w1').state === 'IN_REVIEW' && crew.worker(s, 'w1').note !== null,
      30_000,
      server,
    );
    assert.match(crew.worker(sent, 'w1').note ?? '', /conflicts with its base branch main/);
    assert.match(crew.worker(sent, 'w1').note ?? '', /Merge the latest main/);
    const transitions = await crew.transitions();
    assert.ok(transitions.some((t) => t.trigger === 'mergeConflict' && t.entity_id === 'w1'));
  });
}

/** A commit on `branch` of the forge's bare repository setting `file` to `text`, as a person pushing there would. */
function commitOnForge(bare: string, branch: string, file: string, text: string, message: string): void {
  const index = sandboxPath(`forge-index-${process.pid}-${Date.now()}`);
  const env = { ...process.env, GIT_INDEX_FILE: index, GIT_AUTHOR_NAME: 'Someone', GIT_AUTHOR_EMAIL: 'someone@example.com' };
  const git = (args: string[], input?: string) =>
    execFileSync('git', args, {
      cwd: bare,
      env: { ...env, GIT_COMMITTER_NAME: 'Someone', GIT_COMMITTER_EMAIL: 'someone@example.com' },
      encoding: 'utf8',
      ...(input !== undefined ? { input } : {}),
    }).trim();
  try {
    const parent = git(['rev-parse', `refs/heads/${branch}`]);
    git(['read-tree', parent]);
    const blob = git(['hash-object', '-w', '--stdin'], text);
    git(['update-index', '--add', '--cacheinfo', `100644,${blob},${file}`]);
    const tree = git(['write-tree']);
    const commit = git(['commit-tree', tree, '-p', parent, '-m', message]);
    git(['update-ref', `refs/heads/${branch}`, commit, parent]);
  } finally {
    rmSync(index, { force: true });
  }
}
