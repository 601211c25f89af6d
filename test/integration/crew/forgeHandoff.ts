/**
 * The `pull-request` hand-off scenarios (issue 32, docs/handoff.md) that GitHub's pull requests
 * (pullRequests.test.ts) and GitLab's merge requests (mergeRequests.test.ts) go through alike: a
 * crew whose `origin` is a real bare repository that a scripted forge serves, driven through
 * `foreman serve` and the CLI with the forge's token. Workers run the demo agent. Waiting is
 * polling `foreman status --json`. Each forge is a `ForgeUnderTest`: how to start its scripted
 * server, its settings and token variable, and how to read, merge, close and fail checks on it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { CrewRepo, type Server, type Status, gitIn, makeCrew, sandboxPath } from './crewHarness';

export interface PullView {
  readonly number: number;
  readonly url: string;
  readonly state: string;
  readonly checks?: { state: string; failed: Array<{ name: string; logTail?: string }> };
  readonly comments?: number;
  readonly conflict?: string;
}
type TaskWithPull = Status['tasks'][number] & { readonly pullRequest?: PullView };

/** A pull or merge request as the scripted forge holds it. */
export type ScriptedRequestView = { readonly base: string; readonly head: string; readonly body: string };

/** A scripted forge server, as the scenarios drive it. */
export interface ScriptedServer {
  merge(number: number): void;
  close(number: number): void;
  stop(): Promise<void>;
}

export interface ForgeUnderTest<F extends ScriptedServer> {
  /** What it calls a pull request in the scenarios' messages: "pull request", "merge request". */
  readonly requestName: string;
  /** Who merges, in the scenarios' messages: "the forge", "GitLab". */
  readonly mergerName: string;
  /** Prefixes the scenario's file names in the sandbox. */
  readonly filePrefix: string;
  /** The environment variable the token goes in. */
  readonly tokenEnv: string;
  /** A token allowed to open pull requests. */
  readonly goodToken: string;
  start(bareRepo: string): Promise<F>;
  /** The workspace's `forge` settings; `viaRemote`: only what the remote URL does not say. */
  settings(forge: F, viaRemote: boolean): Record<string, unknown>;
  /** `origin`'s URL that names the forge, for a crew set up `viaRemote` (pushes still go to the bare repository). */
  readonly remoteUrl?: string;
  /** Pull request `number` as the forge holds it. */
  request(forge: F, number: number): ScriptedRequestView | undefined;
  /** How many pull requests the forge holds. */
  count(forge: F): number;
  /** From now on, every check CI runs fails as `name` with `log`. */
  failChecks(forge: F, name: string, log: string): void;
  /** `user` comments on lines `startLine`–`line` of `path` in pull request `number`'s diff. */
  comment(forge: F, number: number, comment: { path: string; line: number; startLine?: number; body: string; user: string }): void;
}

export type ForgeCrew<F> = { readonly crew: CrewRepo; readonly forge: F; readonly bare: string };

export interface ForgeCrewOptions {
  readonly workers: readonly string[];
  readonly token: string;
  readonly autoFixChecks?: number;
  /** `origin`'s URL names the forge (`ForgeUnderTest.remoteUrl`). */
  readonly viaRemote?: boolean | undefined;
}

let repos = 0;

/** A crew whose `origin` is a bare repository the scripted forge serves, in a `pull-request` workspace. */
export async function forgeCrew<F extends ScriptedServer>(kind: ForgeUnderTest<F>, options: ForgeCrewOptions): Promise<ForgeCrew<F>> {
  const bare = sandboxPath(`${kind.filePrefix}origin-${process.pid}-${++repos}.git`);
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  const forge = await kind.start(bare);
  const remoteUrl = options.viaRemote ? kind.remoteUrl : undefined;
  const made = await makeCrew({
    workers: options.workers,
    settings: {
      handoff: 'pull-request',
      forge: kind.settings(forge, remoteUrl !== undefined),
      ...(options.autoFixChecks !== undefined ? { autoFixChecks: options.autoFixChecks } : {}),
    },
  });
  if (remoteUrl !== undefined) {
    gitIn(made.root, ['remote', 'add', 'origin', remoteUrl]);
    gitIn(made.root, ['remote', 'set-url', '--push', 'origin', bare]);
  } else gitIn(made.root, ['remote', 'add', 'origin', bare]);
  gitIn(made.root, ['push', '--quiet', 'origin', 'main']);
  const crew = new CrewRepo(made.root, made.worktreeRoot, { [kind.tokenEnv]: options.token });
  return { crew, forge, bare };
}

export function taskOf(status: Status, id: string): TaskWithPull {
  const task = status.tasks.find((candidate) => candidate.id === id);
  assert.ok(task, `no task ${id}`);
  return task;
}

/** Sets up a crew, runs `scenario` with a server it starts, and stops both, whatever happens. */
export async function withCrew<F extends ScriptedServer>(
  kind: ForgeUnderTest<F>,
  options: ForgeCrewOptions,
  scenario: (crew: ForgeCrew<F>, serve: () => Promise<Server>, stopServer: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const made = await forgeCrew(kind, options);
  let server: Server | undefined;
  try {
    await scenario(
      made,
      async () => (server = await made.crew.serve()),
      async () => {
        await server?.stop();
        server = undefined;
      },
    );
  } finally {
    await server?.stop();
    await made.forge.stop();
  }
}

export interface StackedChainHooks<F> {
  /** The crew's `origin` names the forge (see `ForgeUnderTest.remoteUrl`). */
  readonly viaRemote?: boolean | undefined;
  /** Further checks once the first step's pull request is open. */
  readonly firstOpened?: (context: { crew: CrewRepo; forge: F; worker: string; pull: PullView | undefined }) => Promise<void>;
  /** Further checks once the second step's pull request is retargeted onto `main`. */
  readonly secondRetargeted?: (forge: F) => void;
}

/** A chain of two tasks becomes two stacked pull requests; each merged on the forge, both tasks end done. */
export async function stackedChain<F extends ScriptedServer>(kind: ForgeUnderTest<F>, hooks: StackedChainHooks<F> = {}): Promise<void> {
  const options = { workers: ['w1', 'w2'], token: kind.goodToken, viaRemote: hooks.viaRemote };
  await withCrew(kind, options, async ({ crew, forge, bare }, serve) => {
    const chainFile = sandboxPath(`${kind.filePrefix}stack-${repos}.md`);
    writeFileSync(
      chainFile,
      '# Stack\n\n- [ ] Add the parser\n  write parser.txt parse\n  commit add parser\n- [ ] Use the parser\n  write use.txt use\n  commit use parser\n',
    );
    const added = await crew.json<{ children: Array<{ id: string }> }>(['chain', 'add', '--from', chainFile]);
    const [first, second] = added.children.map((child) => child.id);
    assert.ok(first && second);
    const server = await serve();
    /** The worker whose step `taskId` is in review, once it is. */
    const reviewing = async (step: string, taskId: string) => {
      const review = await crew.waitFor(
        `the ${step} step in review`,
        (s) => s.workers.some((w) => w.taskId === taskId && w.state === 'IN_REVIEW'),
        30_000,
        server,
      );
      return review.workers.find((w) => w.taskId === taskId)?.id ?? '';
    };
    const firstWorker = await reviewing('first', first);
    await crew.ok(['approve', firstWorker]);
    const firstPull = taskOf(await crew.status(), first).pullRequest;
    assert.equal(firstPull?.number, 1);
    assert.equal(firstPull?.state, 'open');
    assert.equal(kind.request(forge, 1)?.base, 'main');
    assert.match(kind.request(forge, 1)?.body ?? '', /Foreman-Task: /);
    assert.match(await crew.ok(['status']), /in PR #1/);
    await hooks.firstOpened?.({ crew, forge, worker: firstWorker, pull: firstPull });

    // The next step does not wait for the merge: it starts on the first step's branch, and its pull request targets that branch.
    const secondWorker = await reviewing('second', second);
    const firstBranch = kind.request(forge, 1)?.head ?? '';
    await crew.ok(['approve', secondWorker]);
    assert.equal(kind.request(forge, 2)?.base, firstBranch, `stacked on the first ${kind.requestName}`);
    assert.equal(taskOf(await crew.status(), first).status, 'running', `not done before ${kind.mergerName} merged it`);

    forge.merge(1);
    const firstDone = await crew.waitFor('the first task done', (s) => taskOf(s, first).status === 'done', 20_000, server);
    assert.equal(taskOf(firstDone, first).pullRequest?.state, 'merged');
    await crew.waitFor('the second retargeted', () => kind.request(forge, 2)?.base === 'main', 20_000, server);
    hooks.secondRetargeted?.(forge);

    forge.merge(2);
    const done = await crew.waitFor('both tasks done', (s) => taskOf(s, second).status === 'done', 20_000, server);
    assert.equal(taskOf(done, second).pullRequest?.state, 'merged');
    for (const worker of done.workers) assert.equal(worker.state, 'IDLE', `worker ${worker.id} is free`);
    const files = execFileSync('git', ['ls-tree', '--name-only', 'main'], { cwd: bare, encoding: 'utf8' });
    assert.match(files, /parser\.txt/);
    assert.match(files, /use\.txt/);
  });
}

/** A pull request closed on the forge sends the task back to review; approved again, it opens a new one. */
export async function closedOnForge<F extends ScriptedServer>(kind: ForgeUnderTest<F>): Promise<void> {
  await withCrew(kind, { workers: ['w1'], token: kind.goodToken }, async ({ crew, forge }, serve) => {
    await crew.addTask('solo', 'Solo change', 'write solo.txt solo\ncommit solo');
    const server = await serve();
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    await crew.ok(['approve', 'w1']);
    assert.equal(crew.worker(await crew.status(), 'w1').state, 'APPROVED');
    forge.close(1);
    const back = await crew.waitForWorker('w1', 'IN_REVIEW', server);
    assert.equal(taskOf(back, 'solo').status, 'running');
    assert.equal(taskOf(back, 'solo').pullRequest?.state, 'closed');
    // Approved again, it opens a new one.
    await crew.ok(['approve', 'w1']);
    assert.equal(taskOf(await crew.status(), 'solo').pullRequest?.number, 2);
  });
}

export interface AutoFixHooks<F> {
  /** Scripts CI on the forge to fail the first commit's `lint` check, with a log ending in the demo agent's fix, and pass the next. */
  readonly failFirstLint: (forge: F) => void;
  /** Further checks of the note the agent got. */
  readonly note?: (note: string) => void;
  /** How the wait for the green checks is named. */
  readonly greenLabel: string;
}

/** A failed check reaches the agent (autoFixChecks), whose fix goes to the same pull request. */
export async function failedCheckAutoFixed<F extends ScriptedServer>(kind: ForgeUnderTest<F>, hooks: AutoFixHooks<F>): Promise<void> {
  const options = { workers: ['w1'], token: kind.goodToken, autoFixChecks: 1 };
  await withCrew(kind, options, async ({ crew, forge }, serve) => {
    hooks.failFirstLint(forge);
    await crew.addTask('checked', 'Checked change', 'write checked.txt v1\ncommit checked');
    const server = await serve();
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
    hooks.note?.(worker.note ?? '');
    assert.match(crew.attemptLog('checked', worker.attempt), /fix\.txt/);
    const transitions = await crew.transitions();
    assert.ok(transitions.some((t) => t.trigger === 'checkFailed' && t.entity_id === 'w1'));
    await crew.ok(['approve', 'w1']);
    assert.equal(kind.count(forge), 1, `the fix went to the same ${kind.requestName}`);
    await crew.waitFor(hooks.greenLabel, (s) => taskOf(s, 'checked').pullRequest?.checks?.state === 'success', 20_000, server);
    forge.merge(1);
    await crew.waitFor('the task done', (s) => taskOf(s, 'checked').status === 'done', 20_000, server);
  });
}

/** send-failure sends a failed check to the agent by hand. */
export async function failureSentByHand<F extends ScriptedServer>(kind: ForgeUnderTest<F>): Promise<void> {
  await withCrew(kind, { workers: ['w1'], token: kind.goodToken }, async ({ crew, forge }, serve) => {
    kind.failChecks(forge, 'unit tests', 'not ok 3 - adds\nwrite sum.txt 4');
    await crew.addTask('sum', 'Sum', 'write sum.txt 5\ncommit sum');
    const server = await serve();
    await crew.waitForWorker('w1', 'IN_REVIEW', server);
    await crew.ok(['approve', 'w1']);
    await crew.waitFor('the failure read', (s) => taskOf(s, 'sum').pullRequest?.checks?.state === 'failure', 20_000, server);
    assert.match(await crew.ok(['status']), /in PR #1 \(checks failed\)/);
    assert.equal(crew.worker(await crew.status(), 'w1').state, 'APPROVED', 'nothing sent without autoFixChecks');
    assert.match(await crew.ok(['send-failure', 'sum']), /unit tests/);
    const fixed = await crew.waitForWorker('w1', 'IN_REVIEW', server);
    assert.match(crew.worker(fixed, 'w1').note ?? '', /not ok 3 - adds/);
  });
}

/** `weak`: a token the forge knows, without the scope to open a pull request; `wrong`: one it does not know; each with what approving says. */
export interface BadTokens {
  readonly weak: string;
  readonly weakMessage: RegExp;
  readonly wrong: string;
  readonly wrongMessage: RegExp;
}

/** A token without the scope, or a wrong one: a clear message, the branch pushed, the task in review. */
export async function badTokens<F extends ScriptedServer>(kind: ForgeUnderTest<F>, tokens: BadTokens): Promise<void> {
  await withCrew(kind, { workers: ['w1'], token: tokens.weak }, async ({ crew, forge, bare }, serve, stopServer) => {
    await crew.addTask('scoped', 'Scoped change', 'write scoped.txt s\ncommit scoped');
    const server = await serve();
    const review = await crew.waitForWorker('w1', 'IN_REVIEW', server);
    const branch = crew.worker(review, 'w1').branch ?? '';
    const weak = await crew.foreman(['approve', 'w1']);
    assert.equal(weak.code, 3, weak.stdout + weak.stderr);
    assert.match(weak.stderr, tokens.weakMessage);
    assert.match(weak.stderr, /stays in review/);
    assert.doesNotMatch(weak.stderr + weak.stdout, new RegExp(tokens.weak));
    assert.ok(
      execFileSync('git', ['rev-parse', '--verify', `refs/heads/${branch}`], { cwd: bare, encoding: 'utf8' }).trim(),
      'branch pushed',
    );
    assert.equal(crew.worker(await crew.status(), 'w1').state, 'IN_REVIEW');

    // The token is the owner's: with none running, a one-shot call with a wrong one owns the store for that call.
    await stopServer();
    const wrong = new CrewRepo(crew.root, crew.worktreeRoot, { [kind.tokenEnv]: tokens.wrong });
    const refused = await wrong.foreman(['approve', 'w1']);
    assert.equal(refused.code, 3);
    assert.match(refused.stderr, tokens.wrongMessage);
    assert.doesNotMatch(refused.stderr + refused.stdout, new RegExp(tokens.wrong));
    assert.equal(crew.worker(await crew.status(), 'w1').state, 'IN_REVIEW');
    assert.equal(kind.count(forge), 0);
  });
}
