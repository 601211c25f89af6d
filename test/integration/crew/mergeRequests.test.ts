/**
 * The `pull-request` hand-off on GitLab (issue 32, docs/handoff.md): merge requests through
 * `foreman serve` and the CLI with GITLAB_TOKEN, against a scripted GitLab
 * (test/support/scriptedGitLab.ts: GitLab itself is out of reach offline) reached with Foreman's own
 * `fetch` client, and a real bare repository the clone pushes to. Workers run the demo agent.
 * Waiting is polling `foreman status --json`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { ScriptedGitLab } from '../../support/scriptedGitLab';
import { CrewRepo, type Server, type Status, gitIn, makeCrew, sandboxPath } from './crewHarness';

const project = 'my-group/sub/app';
const goodToken = 'glpat-scripted-good';
const readOnlyToken = 'glpat-scripted-read-api';

interface PullView {
  readonly number: number;
  readonly url: string;
  readonly state: string;
  readonly checks?: { state: string; failed: Array<{ name: string; logTail?: string }> };
}
type TaskWithPull = Status['tasks'][number] & { readonly pullRequest?: PullView };

let repos = 0;

/**
 * A crew in a `pull-request` workspace on the scripted GitLab. With `fromRemote`, `origin`'s URL is a
 * GitLab one (pushes go to the bare repository through its push URL), and only `apiUrl` is set: the
 * forge and the nested project come from the remote. Otherwise `forge.kind` and `forge.repository` say it.
 */
async function mergeRequestCrew(options: { workers: readonly string[]; token: string; autoFixChecks?: number; fromRemote?: boolean }) {
  const bare = sandboxPath(`gitlab-origin-${process.pid}-${++repos}.git`);
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  const gitlab = await ScriptedGitLab.start({ bareRepo: bare, project, tokens: { [goodToken]: ['api'], [readOnlyToken]: ['read_api'] } });
  const forge = options.fromRemote
    ? { apiUrl: gitlab.apiUrl, pollMs: 200 }
    : { kind: 'gitlab', repository: project, apiUrl: gitlab.apiUrl, pollMs: 200 };
  const made = await makeCrew({
    workers: options.workers,
    settings: {
      handoff: 'pull-request',
      forge,
      ...(options.autoFixChecks !== undefined ? { autoFixChecks: options.autoFixChecks } : {}),
    },
  });
  if (options.fromRemote) {
    gitIn(made.root, ['remote', 'add', 'origin', `git@gitlab.test:${project}.git`]);
    gitIn(made.root, ['remote', 'set-url', '--push', 'origin', bare]);
  } else gitIn(made.root, ['remote', 'add', 'origin', bare]);
  gitIn(made.root, ['push', '--quiet', 'origin', 'main']);
  const crew = new CrewRepo(made.root, made.worktreeRoot, { GITLAB_TOKEN: options.token });
  return { crew, gitlab, bare };
}

function taskOf(status: Status, id: string): TaskWithPull {
  const task = status.tasks.find((candidate) => candidate.id === id);
  assert.ok(task, `no task ${id}`);
  return task;
}

async function stopAll(server: Server | undefined, gitlab: ScriptedGitLab): Promise<void> {
  await server?.stop();
  await gitlab.stop();
}

test(
  'a chain of two tasks becomes two stacked merge requests on the GitLab its remote names; each merged there, both tasks end done',
  { timeout: 180_000 },
  async () => {
    const { crew, gitlab, bare } = await mergeRequestCrew({ workers: ['w1', 'w2'], token: goodToken, fromRemote: true });
    const chainFile = sandboxPath(`gitlab-stack-${repos}.md`);
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
      const firstPull = taskOf(await crew.status(), first).pullRequest;
      assert.equal(firstPull?.number, 1);
      assert.equal(firstPull?.state, 'open');
      assert.equal(firstPull?.url, `https://gitlab.example/${project}/-/merge_requests/1`);
      assert.equal(gitlab.mergeRequest(1)?.targetBranch, 'main');
      assert.match(gitlab.mergeRequest(1)?.description ?? '', /Foreman-Task: /);
      assert.ok(gitlab.requests.includes('POST /api/v4/projects/my-group%2Fsub%2Fapp/merge_requests'), 'the nested project, URL-encoded');
      assert.match(await crew.ok(['status']), /in PR #1/);

      // The next step starts on the first step's branch, and its merge request targets that branch.
      const secondReview = await crew.waitFor(
        'the second step in review',
        (s) => s.workers.some((w) => w.taskId === second && w.state === 'IN_REVIEW'),
        30_000,
        server,
      );
      const secondWorker = secondReview.workers.find((w) => w.taskId === second)?.id ?? '';
      const firstBranch = gitlab.mergeRequest(1)?.sourceBranch ?? '';
      await crew.ok(['approve', secondWorker]);
      assert.equal(gitlab.mergeRequest(2)?.targetBranch, firstBranch, 'stacked on the first merge request');
      assert.equal(taskOf(await crew.status(), first).status, 'running', 'not done before GitLab merged it');

      gitlab.merge(1);
      const firstDone = await crew.waitFor('the first task done', (s) => taskOf(s, first).status === 'done', 20_000, server);
      assert.equal(taskOf(firstDone, first).pullRequest?.state, 'merged');
      await crew.waitFor('the second retargeted', () => gitlab.mergeRequest(2)?.targetBranch === 'main', 20_000, server);
      assert.ok(gitlab.requests.includes('PUT /api/v4/projects/my-group%2Fsub%2Fapp/merge_requests/2'));

      gitlab.merge(2);
      const done = await crew.waitFor('both tasks done', (s) => taskOf(s, second).status === 'done', 20_000, server);
      assert.equal(taskOf(done, second).pullRequest?.state, 'merged');
      for (const worker of done.workers) assert.equal(worker.state, 'IDLE', `worker ${worker.id} is free`);
      const files = execFileSync('git', ['ls-tree', '--name-only', 'main'], { cwd: bare, encoding: 'utf8' });
      assert.match(files, /parser\.txt/);
      assert.match(files, /use\.txt/);
    } finally {
      await stopAll(server, gitlab);
    }
  },
);

test(
  'a merge request closed on GitLab sends the task back to review; approved again, it opens a new one',
  { timeout: 120_000 },
  async () => {
    const { crew, gitlab } = await mergeRequestCrew({ workers: ['w1'], token: goodToken });
    await crew.addTask('solo', 'Solo change', 'write solo.txt solo\ncommit solo');
    let server: Server | undefined;
    try {
      server = await crew.serve();
      await crew.waitForWorker('w1', 'IN_REVIEW', server);
      await crew.ok(['approve', 'w1']);
      assert.equal(crew.worker(await crew.status(), 'w1').state, 'APPROVED');
      gitlab.close(1);
      const back = await crew.waitForWorker('w1', 'IN_REVIEW', server);
      assert.equal(taskOf(back, 'solo').status, 'running');
      assert.equal(taskOf(back, 'solo').pullRequest?.state, 'closed');
      await crew.ok(['approve', 'w1']);
      assert.equal(taskOf(await crew.status(), 'solo').pullRequest?.number, 2);
    } finally {
      await stopAll(server, gitlab);
    }
  },
);

test(
  'a failed pipeline job reaches the agent (autoFixChecks) with its log, and the fix goes to the same merge request',
  { timeout: 120_000 },
  async () => {
    const { crew, gitlab } = await mergeRequestCrew({ workers: ['w1'], token: goodToken, autoFixChecks: 1 });
    // CI fails the first commit's lint job; its log (coloured, in sections, as GitLab's runners write it)
    // ends with the lines the demo agent acts on. A job allowed to fail never counts.
    let failedSha: string | undefined;
    gitlab.jobsFor = (_request, sha) => {
      failedSha ??= sha;
      const flaky = { name: 'flaky', status: 'failed', allowFailure: true, trace: 'flaky as ever' };
      return sha === failedSha
        ? [
            {
              name: 'lint',
              status: 'failed',
              trace:
                'section_start:1700000000:step_script\r\x1b[0K$ npm run lint\n\x1b[31;1merror: missing fix.txt\x1b[0;m\nwrite fix.txt fixed\ncommit fix lint\n',
            },
            flaky,
          ]
        : [{ name: 'lint', status: 'success' }, flaky];
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
      assert.doesNotMatch(worker.note ?? '', /flaky|section_start/);
      assert.ok(!(worker.note ?? '').includes('\x1b'), 'no terminal colours');
      assert.match(crew.attemptLog('checked', worker.attempt), /fix\.txt/);
      const transitions = await crew.transitions();
      assert.ok(transitions.some((t) => t.trigger === 'checkFailed' && t.entity_id === 'w1'));
      await crew.ok(['approve', 'w1']);
      assert.equal(gitlab.mergeRequests.length, 1, 'the fix went to the same merge request');
      await crew.waitFor('the pipeline green', (s) => taskOf(s, 'checked').pullRequest?.checks?.state === 'success', 20_000, server);
      gitlab.merge(1);
      await crew.waitFor('the task done', (s) => taskOf(s, 'checked').status === 'done', 20_000, server);
    } finally {
      await stopAll(server, gitlab);
    }
  },
);

test('send-failure sends a failed pipeline job to the agent by hand', { timeout: 120_000 }, async () => {
  const { crew, gitlab } = await mergeRequestCrew({ workers: ['w1'], token: goodToken });
  gitlab.jobsFor = () => [{ name: 'unit tests', status: 'failed', trace: 'not ok 3 - adds\nwrite sum.txt 4' }];
  await crew.addTask('sum', 'Sum', 'write sum.txt 5\ncommit sum');
  let server: Server | undefined;
  try {
    server = await crew.serve();
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    await crew.ok(['approve', 'w1']);
    await crew.waitFor('the failure read', (s) => taskOf(s, 'sum').pullRequest?.checks?.state === 'failure', 20_000, server);
    assert.match(await crew.ok(['status']), /in PR #1 \(checks failed\)/);
    assert.equal(crew.worker(await crew.status(), 'w1').state, 'APPROVED', 'nothing sent without autoFixChecks');
    assert.match(await crew.ok(['send-failure', 'sum']), /unit tests/);
    const fixed = await crew.waitForWorker('w1', 'IN_REVIEW', server);
    assert.match(crew.worker(fixed, 'w1').note ?? '', /not ok 3 - adds/);
  } finally {
    await stopAll(server, gitlab);
  }
});

test(
  'a token without the api scope, or a wrong one: a clear message, the branch pushed, the task in review',
  { timeout: 120_000 },
  async () => {
    const { crew, gitlab, bare } = await mergeRequestCrew({ workers: ['w1'], token: readOnlyToken });
    await crew.addTask('scoped', 'Scoped change', 'write scoped.txt s\ncommit scoped');
    let server: Server | undefined;
    try {
      server = await crew.serve();
      const review = await crew.waitForWorker('w1', 'IN_REVIEW', server);
      const branch = crew.worker(review, 'w1').branch ?? '';
      const weak = await crew.foreman(['approve', 'w1']);
      assert.equal(weak.code, 3, weak.stdout + weak.stderr);
      assert.match(weak.stderr, /GitLab refused opening a merge request .* the token lacks the `api` scope/);
      assert.match(weak.stderr, /stays in review/);
      assert.doesNotMatch(weak.stderr + weak.stdout, new RegExp(readOnlyToken));
      assert.ok(
        execFileSync('git', ['rev-parse', '--verify', `refs/heads/${branch}`], { cwd: bare, encoding: 'utf8' }).trim(),
        'branch pushed',
      );
      assert.equal(crew.worker(await crew.status(), 'w1').state, 'IN_REVIEW');

      // The token is the owner's: with none running, a one-shot call with a wrong one owns the store for that call.
      await server.stop();
      server = undefined;
      const wrong = new CrewRepo(crew.root, crew.worktreeRoot, { GITLAB_TOKEN: 'glpat-wrong' });
      const refused = await wrong.foreman(['approve', 'w1']);
      assert.equal(refused.code, 3);
      assert.match(refused.stderr, /GitLab refused the token .* it is wrong, expired or revoked\. Set GITLAB_TOKEN/);
      assert.doesNotMatch(refused.stderr + refused.stdout, /glpat-wrong/);
      assert.equal(crew.worker(await crew.status(), 'w1').state, 'IN_REVIEW');
      assert.equal(gitlab.mergeRequests.length, 0);
    } finally {
      await stopAll(server, gitlab);
    }
  },
);
