/**
 * The `pull-request` hand-off (issue 32, docs/handoff.md) through `foreman serve` and the CLI with
 * GITHUB_TOKEN, against a scripted GitHub (test/support/scriptedForge.ts: GitHub itself is out of
 * reach offline) driven by the real @octokit/rest, and a real bare repository as `origin`. Workers
 * run the demo agent. Waiting is polling `foreman status --json`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { ScriptedForge } from '../../support/scriptedForge';
import { CrewRepo, type Server, type Status, gitIn, makeCrew, sandboxPath } from './crewHarness';

const owner = 'octo-org';
const repo = 'app';
const goodToken = 'ghp_scripted_good_token';
const weakToken = 'ghp_scripted_no_repo_scope';

interface PullView {
  readonly number: number;
  readonly url: string;
  readonly state: string;
  readonly checks?: { state: string; failed: Array<{ name: string; logTail?: string }> };
}
type TaskWithPull = Status['tasks'][number] & { readonly pullRequest?: PullView };

let repos = 0;

/** A crew whose `origin` is a bare repository the scripted forge serves, in a `pull-request` workspace. */
async function pullRequestCrew(options: { workers: readonly string[]; token: string; autoFixChecks?: number }) {
  const bare = sandboxPath(`origin-${process.pid}-${++repos}.git`);
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  const forge = await ScriptedForge.start({ bareRepo: bare, owner, repo, tokens: { [goodToken]: ['repo'], [weakToken]: ['read:user'] } });
  const made = await makeCrew({
    workers: options.workers,
    settings: {
      handoff: 'pull-request',
      forge: { repository: `${owner}/${repo}`, apiUrl: forge.url, pollMs: 200 },
      ...(options.autoFixChecks !== undefined ? { autoFixChecks: options.autoFixChecks } : {}),
    },
  });
  gitIn(made.root, ['remote', 'add', 'origin', bare]);
  gitIn(made.root, ['push', '--quiet', 'origin', 'main']);
  const crew = new CrewRepo(made.root, made.worktreeRoot, { GITHUB_TOKEN: options.token });
  return { crew, forge, bare };
}

function taskOf(status: Status, id: string): TaskWithPull {
  const task = status.tasks.find((candidate) => candidate.id === id);
  assert.ok(task, `no task ${id}`);
  return task;
}

async function stopAll(server: Server | undefined, forge: ScriptedForge): Promise<void> {
  await server?.stop();
  await forge.stop();
}

test(
  'a chain of two tasks becomes two stacked pull requests; each merged on the forge, both tasks end done',
  { timeout: 180_000 },
  async () => {
    const { crew, forge, bare } = await pullRequestCrew({ workers: ['w1', 'w2'], token: goodToken });
    const chainFile = sandboxPath(`stack-${repos}.md`);
    writeFileSync(
      chainFile,
      '# Stack\n\n- [ ] Add the parser\n  write parser.txt parse\n  commit add parser\n- [ ] Use the parser\n  write use.txt use\n  commit use parser\n',
    );
    const added = await crew.json<{ children: Array<{ id: string }> }>(['chain', 'add', '--from', chainFile]);
    const [first, second] = added.children.map((child) => child.id);
    assert.ok(first && second);
    let server: Server | undefined;
    try {
      server = await crew.serve();
      const inReview = await crew.waitFor(
        'the first step in review',
        (s) => s.workers.some((w) => w.taskId === first && w.state === 'IN_REVIEW'),
        30_000,
        server,
      );
      const firstWorker = inReview.workers.find((w) => w.taskId === first)?.id ?? '';
      await crew.ok(['approve', firstWorker]);
      const opened = await crew.status();
      const firstPull = taskOf(opened, first).pullRequest;
      assert.equal(firstPull?.number, 1);
      assert.equal(firstPull?.state, 'open');
      assert.equal(forge.pull(1)?.base, 'main');
      assert.match(forge.pull(1)?.body ?? '', /Foreman-Task: /);
      assert.match(await crew.ok(['status']), /in PR #1/);
      // A local merge would land it twice: the forge merges it.
      const merge = await crew.foreman(['merge', firstWorker]);
      assert.equal(merge.code, 3, merge.stdout + merge.stderr);
      assert.match(merge.stderr + merge.stdout, /pull request #1/);

      // The next step does not wait for the merge: it starts on the first step's branch.
      const secondReview = await crew.waitFor(
        'the second step in review',
        (s) => s.workers.some((w) => w.taskId === second && w.state === 'IN_REVIEW'),
        30_000,
        server,
      );
      const secondWorker = secondReview.workers.find((w) => w.taskId === second)?.id ?? '';
      const firstBranch = forge.pull(1)?.head ?? '';
      await crew.ok(['approve', secondWorker]);
      assert.equal(forge.pull(2)?.base, firstBranch, 'stacked on the first pull request');
      assert.equal(taskOf(await crew.status(), first).status, 'running', 'not done before the forge merged it');

      forge.merge(1);
      const firstDone = await crew.waitFor('the first task done', (s) => taskOf(s, first).status === 'done', 20_000, server);
      assert.equal(taskOf(firstDone, first).pullRequest?.state, 'merged');
      await crew.waitFor('the second retargeted', () => forge.pull(2)?.base === 'main', 20_000, server);

      forge.merge(2);
      const done = await crew.waitFor('both tasks done', (s) => taskOf(s, second).status === 'done', 20_000, server);
      assert.equal(taskOf(done, second).pullRequest?.state, 'merged');
      for (const worker of done.workers) assert.equal(worker.state, 'IDLE', `worker ${worker.id} is free`);
      const files = execFileSync('git', ['ls-tree', '--name-only', 'main'], { cwd: bare, encoding: 'utf8' });
      assert.match(files, /parser\.txt/);
      assert.match(files, /use\.txt/);
    } finally {
      await stopAll(server, forge);
    }
  },
);

test('a pull request closed on the forge sends the task back to review', { timeout: 120_000 }, async () => {
  const { crew, forge } = await pullRequestCrew({ workers: ['w1'], token: goodToken });
  await crew.addTask('solo', 'Solo change', 'write solo.txt solo\ncommit solo');
  let server: Server | undefined;
  try {
    server = await crew.serve();
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    await crew.ok(['approve', 'w1']);
    assert.equal(crew.worker(await crew.status(), 'w1').state, 'APPROVED');
    forge.close(1);
    const back = await crew.waitForWorker('w1', 'IN_REVIEW', server);
    assert.equal(taskOf(back, 'solo').status, 'running');
    assert.equal(taskOf(back, 'solo').pullRequest?.state, 'closed');
    // Approved again, it opens a new pull request.
    await crew.ok(['approve', 'w1']);
    assert.equal(taskOf(await crew.status(), 'solo').pullRequest?.number, 2);
  } finally {
    await stopAll(server, forge);
  }
});

test('a failed check reaches the agent (autoFixChecks), whose fix goes to the same pull request', { timeout: 120_000 }, async () => {
  const { crew, forge } = await pullRequestCrew({ workers: ['w1'], token: goodToken, autoFixChecks: 1 });
  // CI fails the first commit; its log ends with the lines the demo agent acts on.
  let failedSha: string | undefined;
  forge.checksFor = (_pull, sha) => {
    failedSha ??= sha;
    return sha === failedSha
      ? [{ name: 'lint', conclusion: 'failure', log: 'npm run lint\nerror: missing fix.txt\nwrite fix.txt fixed\ncommit fix lint' }]
      : [{ name: 'lint', conclusion: 'success' }];
  };
  await crew.addTask('checked', 'Checked change', 'write checked.txt v1\ncommit checked');
  let server: Server | undefined;
  try {
    server = await crew.serve();
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    await crew.ok(['approve', 'w1']);
    const fixed = await crew.waitFor(
      'the fix in review',
      (s) => crew.worker(s, 'w1').state === 'IN_REVIEW' && crew.worker(s, 'w1').note !== null,
      30_000,
      server,
    );
    const worker = crew.worker(fixed, 'w1');
    assert.match(worker.note ?? '', /Check "lint" failed/);
    assert.match(worker.note ?? '', /error: missing fix\.txt/);
    assert.match(crew.attemptLog('checked', worker.attempt), /fix\.txt/);
    const transitions = await crew.transitions();
    assert.ok(transitions.some((t) => t.trigger === 'checkFailed' && t.entity_id === 'w1'));
    await crew.ok(['approve', 'w1']);
    assert.equal(forge.pulls.length, 1, 'the fix went to the same pull request');
    await crew.waitFor('checks green', (s) => taskOf(s, 'checked').pullRequest?.checks?.state === 'success', 20_000, server);
    forge.merge(1);
    await crew.waitFor('the task done', (s) => taskOf(s, 'checked').status === 'done', 20_000, server);
  } finally {
    await stopAll(server, forge);
  }
});

test('send-failure sends a failed check to the agent by hand', { timeout: 120_000 }, async () => {
  const { crew, forge } = await pullRequestCrew({ workers: ['w1'], token: goodToken });
  forge.checksFor = () => [{ name: 'unit tests', conclusion: 'failure', log: 'not ok 3 - adds\nwrite sum.txt 4' }];
  await crew.addTask('sum', 'Sum', 'write sum.txt 5\ncommit sum');
  let server: Server | undefined;
  try {
    server = await crew.serve();
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    await crew.ok(['approve', 'w1']);
    await crew.waitFor('the failure read', (s) => taskOf(s, 'sum').pullRequest?.checks?.state === 'failure', 20_000, server);
    assert.match(await crew.ok(['status']), /in PR #1 \(checks failed\)/);
    assert.equal(crew.worker(await crew.status(), 'w1').state, 'APPROVED', 'nothing sent without autoFixChecks');
    const sent = await crew.ok(['send-failure', 'sum']);
    assert.match(sent, /unit tests/);
    const fixed = await crew.waitForWorker('w1', 'IN_REVIEW', server);
    assert.match(crew.worker(fixed, 'w1').note ?? '', /not ok 3 - adds/);
  } finally {
    await stopAll(server, forge);
  }
});

test(
  'a token without the repo scope, or a wrong one: a clear message, the branch pushed, the task in review',
  { timeout: 120_000 },
  async () => {
    const { crew, forge, bare } = await pullRequestCrew({ workers: ['w1'], token: weakToken });
    await crew.addTask('scoped', 'Scoped change', 'write scoped.txt s\ncommit scoped');
    let server: Server | undefined;
    try {
      server = await crew.serve();
      const review = await crew.waitForWorker('w1', 'IN_REVIEW', server);
      const branch = crew.worker(review, 'w1').branch ?? '';
      const weak = await crew.foreman(['approve', 'w1']);
      assert.equal(weak.code, 3, weak.stdout + weak.stderr);
      assert.match(weak.stderr, /lacks the `repo` scope/);
      assert.match(weak.stderr, /stays in review/);
      assert.doesNotMatch(weak.stderr + weak.stdout, new RegExp(weakToken));
      assert.ok(
        execFileSync('git', ['rev-parse', '--verify', `refs/heads/${branch}`], { cwd: bare, encoding: 'utf8' }).trim(),
        'branch pushed',
      );
      assert.equal(crew.worker(await crew.status(), 'w1').state, 'IN_REVIEW');

      // The token is the owner's: with none running, a one-shot call with a wrong one owns the store for that call.
      await server.stop();
      server = undefined;
      const wrong = new CrewRepo(crew.root, crew.worktreeRoot, { GITHUB_TOKEN: 'ghp_wrong' });
      const refused = await wrong.foreman(['approve', 'w1']);
      assert.equal(refused.code, 3);
      assert.match(refused.stderr, /refused the token/);
      assert.doesNotMatch(refused.stderr + refused.stdout, /ghp_wrong/);
      assert.equal(crew.worker(await crew.status(), 'w1').state, 'IN_REVIEW');
      assert.equal(forge.pulls.length, 0);
    } finally {
      await stopAll(server, forge);
    }
  },
);
