import type { Request, ResultOf } from '../core/requests';
import { type Failure, type Result, ok, refused } from '../core/result';
import { taskCommitMessage } from '../core/taskCommitMessage';
import { WorkerState } from '../core/workerMachine';
import { RunOnceScheduler, SequencerByKey } from '../base/async';
import { type Disposable, DisposableStore } from '../base/lifetime';
import type { ForgePort, HandoffSettings, PullRequestInfo } from './forge';
import { PullRequestFeedback, holderOf } from './pullRequestFeedback';
import { pullRequestBody } from './pullRequestText';
import type { Clock, GitPort } from './ports';
import {
  type PullRequestRow,
  findPullRequest,
  listOpenPullRequests,
  listStackedOn,
  listSuccessorIds,
  recordPullRequest,
  setPullRequestBase,
  setPullRequestState,
  unblockTask,
} from './queries';
import { type TaskRow, type WorkerRow, findTask, findWorker, readMeta } from './rows';
import type { Transactor } from './transactor';

/**
 * The `pull-request` hand-off (issue 32, docs/handoff.md), internal to the engine. Approve pushes the
 * task's branch and opens its pull request before the approval is recorded, so a forge that refuses
 * (no token, a wrong one, a missing scope) leaves the task in review with its branch pushed. While
 * the pull request is open the forge is read back on the engine's clock: merged there, the task is
 * done and the worker free; closed, the work is back in review; a failed check goes to the agent
 * (`send-failure`, or by itself under `autoFixChecks`). A chain's next step starts on this step's
 * branch while its pull request is open, and is retargeted to the base once that one merges.
 */
export class PullRequests implements Disposable {
  private readonly perWorker = new SequencerByKey<string>();
  private readonly disposables = new DisposableStore();
  private watching: RunOnceScheduler | undefined;
  /** The last thing said about each pull request's reading, so a forge that stays away is said once. */
  private readonly said = new Map<number, string>();

  private readonly feedback: PullRequestFeedback;

  constructor(
    private readonly tx: Transactor,
    private readonly git: GitPort,
    private readonly forge: ForgePort,
    private readonly settings: HandoffSettings,
    private readonly clock: Clock,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.feedback = new PullRequestFeedback(tx, git, forge, settings, (key, work) => this.perWorker.queue(key, work));
  }

  approve(request: Request<'approve'>): Promise<Result<ResultOf<'approve'>>> {
    const workerId = request.args.worker;
    return this.perWorker.queue(workerId, () => this.approveWorker(workerId, request));
  }

  /** A local merge of work whose pull request is open would land it twice: the forge merges it. */
  mergeRefusal(workerId: string): Failure | undefined {
    const row = this.tx.read((reader) => {
      const taskId = findWorker(reader, workerId)?.task_id;
      return taskId ? findPullRequest(reader, taskId) : undefined;
    });
    if (row?.pr_state !== 'open') return undefined;
    return refused(
      'pullRequestOpen',
      `'${row.id}' is in pull request #${row.pr_number} (${row.pr_url}); it is merged there, and Foreman sees it when it is.`,
      {
        pullRequest: row.pr_number,
      },
    );
  }

  /** `foreman send-failure <task>`: the failed checks (and a conflict) of the task's pull request go to its agent. */
  sendFailure(request: Request<'send-failure'>): Promise<Result<ResultOf<'send-failure'>>> {
    return this.feedback.sendFailure(request);
  }

  /** `foreman send-review <task>`: the comments people left on the task's pull request go to its agent. */
  sendReview(request: Request<'send-review'>): Promise<Result<ResultOf<'send-review'>>> {
    return this.feedback.sendReview(request);
  }

  /** A long-running owner reads open pull requests back every `pollMs`, on the engine's clock. */
  startWatching(): void {
    if (this.watching) return;
    const watching = this.disposables.add(
      new RunOnceScheduler(() => void this.readBack().finally(() => watching.schedule()), this.settings.pollMs, this.clock),
    );
    this.watching = watching;
    watching.schedule(0);
  }

  /** One pass over the open pull requests; exceptions are said, never thrown at the timer. */
  async readBack(): Promise<void> {
    const open = this.tx.read((reader) => listOpenPullRequests(reader));
    for (const row of open) {
      try {
        await this.perWorker.queue(row.worker_id ?? row.id, () => this.readOne(row));
      } catch (error) {
        this.sayOnce(
          row.pr_number,
          `forge: reading pull request #${row.pr_number} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  private async approveWorker(workerId: string, request: Request<'approve'>): Promise<Result<ResultOf<'approve'>>> {
    const found = this.load(workerId);
    // Anything but a worker in review gets the plain transaction's own refusal (and its rejection row).
    if (!found || found.worker.state !== WorkerState.InReview || !found.worker.branch) return this.tx.apply(request);
    const { worker, task } = found;
    const work = { workerId, taskId: task.id, attempt: worker.attempt, branch: found.worker.branch };
    await this.git.commitLeftovers(work, taskCommitMessage(task, worker.summary));
    const pushed = await this.forge.push(work);
    if (!pushed.ok) return stillInReview(pushed, `Nothing was approved; '${task.id}' stays in review.`);
    const opened = await this.pullRequestFor(task, worker, work.branch);
    if (!opened.ok)
      return stillInReview(opened, `The branch ${work.branch} is pushed; '${task.id}' stays in review. Approve again once that is fixed.`);
    const pull = opened.value;
    return this.tx.step(request, (unit, s) => {
      const approved = s.state.approve(unit, workerId);
      if (!approved.ok) return approved;
      recordPullRequest(unit.tx, task.id, pull.number, pull.url);
      // The chain's next step need not wait for the merge: it starts on this branch (stacked).
      for (const successor of listSuccessorIds(unit.tx, task.id)) {
        unblockTask(unit.tx, successor);
        setPullRequestBase(unit.tx, successor, work.branch);
        unit.events.push({ kind: 'unblocked', id: successor, after: task.id });
      }
      unit.events.push({ kind: 'rowsChanged', workers: [workerId], tasks: [task.id] });
      return approved;
    });
  }

  /** The task's open pull request (after a fix, its branch was pushed to it), or a new one. */
  private async pullRequestFor(task: TaskRow, worker: WorkerRow, branch: string): Promise<Result<PullRequestInfo>> {
    if (task.pr_number !== null && task.pr_state === 'open') {
      const existing = await this.forge.get(task.pr_number);
      if (existing.ok && existing.value.state === 'open') return existing;
    }
    const base = task.pr_base ?? this.baseBranch();
    return this.forge.open({ head: branch, base, title: task.title, body: pullRequestBody(task, worker) });
  }

  private async readOne(row: PullRequestRow): Promise<void> {
    const pull = await this.forge.get(row.pr_number);
    if (!pull.ok) return this.sayOnce(row.pr_number, `forge: pull request #${row.pr_number} of ${row.id}: ${pull.message}`);
    this.said.delete(row.pr_number);
    if (pull.value.state === 'merged') return this.merged(row);
    if (pull.value.state === 'closed') {
      this.tx.internal('forge', (unit, s) => {
        setPullRequestState(unit.tx, row.id, 'closed');
        unit.events.push({ kind: 'rowsChanged', workers: [], tasks: [row.id] });
        const worker = holderOf(unit, row);
        if (worker?.state === WorkerState.Approved)
          return s.state.pullRequestClosed(unit, worker.id, `pull request #${row.pr_number} was closed without merging`);
        return ok(undefined);
      });
      return;
    }
    const checks = await this.forge.checks(pull.value);
    if (!checks.ok) return this.sayOnce(row.pr_number, `forge: checks of pull request #${row.pr_number}: ${checks.message}`);
    // Comments that cannot be read do not hold up the checks: said once, read again next time.
    const comments = await this.forge.comments(pull.value);
    if (!comments.ok) this.sayOnce(row.pr_number, `forge: comments of pull request #${row.pr_number}: ${comments.message}`);
    this.feedback.read(row, pull.value, checks.value, comments.ok ? comments.value : undefined);
  }

  /** Merged on the forge: the task is done, the worker free, and what was stacked on it retargeted to the base. */
  private async merged(row: PullRequestRow): Promise<void> {
    this.tx.internal('forge', (unit, s) => {
      setPullRequestState(unit.tx, row.id, 'merged');
      unit.events.push({ kind: 'rowsChanged', workers: [], tasks: [row.id] });
      let worker = holderOf(unit, row);
      // Merged on the forge while its fix waited for a new review: the forge's word stands.
      if (worker?.state === WorkerState.InReview) {
        const approved = s.state.approve(unit, worker.id);
        if (!approved.ok) return approved;
        worker = approved.value;
      }
      if (worker?.state !== WorkerState.Approved) return ok(undefined);
      return s.state.merged(unit, worker.id, { pullRequest: row.pr_number });
    });
    if (!row.branch) return;
    const base = this.baseBranch();
    const stacked = this.tx.read((reader) => listStackedOn(reader, row.branch ?? ''));
    for (const { id } of stacked) {
      const pull = this.tx.read((reader) => findPullRequest(reader, id));
      if (pull?.pr_state === 'open') {
        const moved = await this.forge.retarget(pull.pr_number, base);
        if (!moved.ok) this.log(`forge: retargeting pull request #${pull.pr_number} to ${base} failed: ${moved.message}`);
      }
      this.tx.internal('forge', (unit) => {
        setPullRequestBase(unit.tx, id, null);
        unit.events.push({ kind: 'rowsChanged', workers: [], tasks: [id] });
        return ok(undefined);
      });
    }
  }

  private load(workerId: string): { worker: WorkerRow; task: TaskRow } | undefined {
    return this.tx.read((reader) => {
      const worker = findWorker(reader, workerId);
      const task = worker?.task_id ? findTask(reader, worker.task_id) : undefined;
      return worker && task ? { worker, task } : undefined;
    });
  }

  private baseBranch(): string {
    return this.tx.read((reader) => readMeta(reader, 'base_branch')) ?? 'main';
  }

  private sayOnce(number: number, line: string): void {
    if (this.said.get(number) === line) return;
    this.said.set(number, line);
    this.log(line);
  }

  dispose(): void {
    this.disposables.dispose();
  }
}

/** A refusal from git or the forge, with what became of the task. */
function stillInReview(failure: Failure, after: string): Failure {
  return { ...failure, message: `${failure.message} ${after}` };
}
