import type { Request, ResultOf } from '../core/requests';
import { type Result, notFound, ok, refused } from '../core/result';
import { WorkerState } from '../core/workerMachine';
import type { CheckInfo, ForgePort, HandoffSettings, PullRequestInfo, ReviewCommentInfo } from './forge';
import { commentsNote, quoteFromBranch, unsentComments } from './pullRequestComments';
import { type PullRequestChecks, failureNote, readChecks, summarizeChecks } from './pullRequestText';
import type { GitPort } from './ports';
import { type PullRequestRow, findPullRequest, setPullRequestChecks } from './queries';
import { type WorkerRow, findTask, findWorker } from './rows';
import type { StateService } from './stateService';
import type { Transactor } from './transactor';
import type { Unit } from './unit';

/** Runs `work` after what is queued for the same worker (PullRequests' per-worker sequencer). */
export type PerWorker = <T>(key: string, work: () => Promise<T>) => Promise<T>;

/**
 * What an open pull request says back to the agent (docs/handoff.md): its failed checks and a
 * conflict with its base (`send-failure`, or by themselves under `autoFixChecks`, once per commit),
 * and the line comments people left on it (`send-review`, each comment once). What was read and
 * what was sent is kept in the task's `pr_checks` JSON.
 */
export class PullRequestFeedback {
  constructor(
    private readonly tx: Transactor,
    private readonly git: GitPort,
    private readonly forge: ForgePort,
    private readonly settings: HandoffSettings,
    private readonly perWorker: PerWorker,
  ) {}

  /** An open pull request read back: its checks, conflict and comments kept, and sent by themselves when the workspace opts in. */
  read(row: PullRequestRow, pull: PullRequestInfo, checks: readonly CheckInfo[], comments: readonly ReviewCommentInfo[] | undefined): void {
    this.tx.internal('forge', (unit, s) => {
      const current = findPullRequest(unit.tx, row.id) ?? row;
      const automatic = current.check_fixes < this.settings.autoFixChecks;
      const sent = automatic ? this.sendFailed(unit, s.state, current, pull, checks, true, comments) : undefined;
      if (sent) return sent;
      const stored = readChecks(current.pr_checks);
      const summary = JSON.stringify(readingOf(stored, pull, checks, comments));
      if (summary === current.pr_checks) return ok(undefined);
      setPullRequestChecks(unit.tx, row.id, summary, false);
      unit.events.push({ kind: 'rowsChanged', workers: [], tasks: [row.id] });
      return ok(undefined);
    });
  }

  /** `foreman send-failure <task>`: the failed checks of the task's pull request, and a conflict with its base, go to its agent. */
  async sendFailure(request: Request<'send-failure'>): Promise<Result<ResultOf<'send-failure'>>> {
    const found = await this.openPullRequest(request.args.task);
    if (!found.ok) return found;
    const { row, pull } = found.value;
    const checks = await this.forge.checks(pull);
    if (!checks.ok) return checks;
    const failed = checks.value.filter((check) => check.state === 'failure');
    if (failed.length === 0 && !pull.conflict) {
      return refused(
        'noFailedCheck',
        `No check has failed on pull request #${row.pr_number} (${summarizeChecks(checks.value, pull.headSha).state}) and it does not conflict with its base; nothing to send.`,
      );
    }
    return this.perWorker(row.worker_id ?? row.id, () =>
      Promise.resolve(
        this.tx.step(request, (unit, s) => {
          const current = findPullRequest(unit.tx, row.id) ?? row;
          const sent = this.sendFailed(unit, s.state, current, pull, checks.value, false);
          if (!sent) return notWaiting(row.id);
          if (!sent.ok) return sent;
          const conflict = pull.conflict ? { conflict: pull.base } : {};
          return ok({ ...sent.value, pullRequest: row.pr_number, checks: failed.map((check) => check.name), ...conflict });
        }),
      ),
    );
  }

  /**
   * `foreman send-review <task>` (and VS Code's Send Review to Agent, whose own comments come as
   * `note`): the pull request's comments not sent yet go to the agent as one note, resuming its
   * session — from APPROVED (waiting on the pull request) or IN_REVIEW (a fix waiting for review).
   */
  async sendReview(request: Request<'send-review'>): Promise<Result<ResultOf<'send-review'>>> {
    const found = await this.openPullRequest(request.args.task);
    if (!found.ok) return found;
    const { row, pull } = found.value;
    const comments = await this.forge.comments(pull);
    if (!comments.ok) return comments;
    const unsent = unsentComments(comments.value, readChecks(row.pr_checks)?.sentComments);
    if (unsent.length === 0 && !request.args.note) {
      return refused(
        'noReviewComments',
        `Pull request #${row.pr_number} of '${row.id}' has no line comments that were not sent to the agent already; nothing to send.`,
      );
    }
    const quoted = row.branch
      ? await quoteFromBranch(this.git, row.branch, unsent)
      : unsent.map((comment) => ({ ...comment, code: undefined }));
    const { note, sent } = commentsNote(pull, quoted, request.args.note);
    return this.perWorker(row.worker_id ?? row.id, () =>
      Promise.resolve(
        this.tx.step(request, (unit, s) => {
          const current = findPullRequest(unit.tx, row.id) ?? row;
          const worker = holderOf(unit, current);
          const metadata = { pullRequest: row.pr_number, comments: sent.map((comment) => comment.id) };
          const moved =
            worker?.state === WorkerState.Approved
              ? s.state.fromPullRequest(unit, worker.id, 'reviewComments', note, metadata)
              : worker?.state === WorkerState.InReview
                ? s.state.requestChanges(unit, worker.id, note)
                : undefined;
          if (!moved) return notWaiting(row.id);
          if (!moved.ok) return moved;
          const stored = readChecks(current.pr_checks);
          const sentComments = [...(stored?.sentComments ?? []), ...sent.map((comment) => comment.id)];
          const left = unsentComments(comments.value, sentComments).length;
          setPullRequestChecks(
            unit.tx,
            row.id,
            JSON.stringify({ ...readingOf(stored, pull, undefined, undefined), sentComments, comments: left }),
            false,
          );
          unit.events.push({ kind: 'rowsChanged', workers: [], tasks: [row.id] });
          return ok({ ...moved.value, pullRequest: row.pr_number, comments: sent.length });
        }),
      ),
    );
  }

  /** The task's open pull request: its row, and the forge's word on it now. */
  private async openPullRequest(taskId: string): Promise<Result<{ row: PullRequestRow; pull: PullRequestInfo }>> {
    const row = this.tx.read((reader) => findPullRequest(reader, taskId));
    if (!row) {
      const task = this.tx.read((reader) => findTask(reader, taskId));
      return task
        ? refused('noPullRequest', `Task '${taskId}' has no pull request; approve it in a pull-request workspace first.`)
        : notFound('task', taskId);
    }
    if (row.pr_state !== 'open')
      return refused(
        'pullRequestNotOpen',
        `Pull request #${row.pr_number} of '${taskId}' is ${row.pr_state}; only an open one's checks and comments are sent.`,
      );
    const pull = await this.forge.get(row.pr_number);
    return pull.ok ? ok({ row, pull: pull.value }) : pull;
  }

  /**
   * Sends the failed checks and a conflict with the base to the worker's agent (APPROVED → WORKING,
   * resuming its session), each once per commit when `automatic`. Undefined when there is nothing
   * to send or nobody to send it to.
   */
  private sendFailed(
    unit: Unit,
    state: StateService,
    row: PullRequestRow,
    pull: PullRequestInfo,
    checks: readonly CheckInfo[],
    automatic: boolean,
    comments?: readonly ReviewCommentInfo[],
  ): Result<WorkerRow> | undefined {
    const stored = readChecks(row.pr_checks);
    const summary = summarizeChecks(checks, pull.headSha);
    const failed = summary.state === 'failure' && !(automatic && stored?.sentFor === pull.headSha) ? summary.failed : [];
    const conflict = pull.conflict && !(automatic && stored?.conflictSentFor === pull.headSha) ? pull.base : undefined;
    if (failed.length === 0 && !conflict) return undefined;
    const worker = holderOf(unit, row);
    if (worker?.state !== WorkerState.Approved) return undefined;
    const reading = readingOf(stored, pull, checks, comments);
    const sentFor = failed.length > 0 ? { sentFor: pull.headSha } : {};
    const conflictSentFor = conflict ? { conflictSentFor: pull.headSha } : {};
    setPullRequestChecks(unit.tx, row.id, JSON.stringify({ ...reading, ...sentFor, ...conflictSentFor }), automatic);
    const note = failureNote(pull, failed, conflict);
    const trigger = failed.length > 0 ? 'checkFailed' : 'mergeConflict';
    return state.fromPullRequest(unit, worker.id, trigger, note, {
      pullRequest: pull.number,
      checks: failed.map((check) => check.name),
      ...(conflict ? { conflict } : {}),
      automatic,
    });
  }
}

/** What is kept of a reading: the checks' summary, the comments not sent yet, the conflict, and what was sent. */
function readingOf(
  stored: PullRequestChecks | undefined,
  pull: PullRequestInfo,
  checks: readonly CheckInfo[] | undefined,
  comments: readonly ReviewCommentInfo[] | undefined,
): PullRequestChecks {
  const summary = checks
    ? summarizeChecks(checks, pull.headSha)
    : { sha: stored?.sha ?? pull.headSha, state: stored?.state ?? 'none', failed: stored?.failed ?? [] };
  const unsent = comments ? unsentComments(comments, stored?.sentComments).length : stored?.comments;
  return {
    ...summary,
    ...(stored?.sentFor ? { sentFor: stored.sentFor } : {}),
    ...(unsent !== undefined ? { comments: unsent } : {}),
    ...(stored?.sentComments?.length ? { sentComments: stored.sentComments } : {}),
    ...(pull.conflict ? { conflict: pull.base } : {}),
    ...(stored?.conflictSentFor ? { conflictSentFor: stored.conflictSentFor } : {}),
  };
}

/** The worker still holding the task of this pull request. */
export function holderOf(unit: Unit, row: PullRequestRow): WorkerRow | undefined {
  const worker = row.worker_id ? findWorker(unit.tx, row.worker_id) : undefined;
  return worker?.task_id === row.id ? worker : undefined;
}

function notWaiting(taskId: string) {
  return refused(
    'notApproved',
    `The worker of '${taskId}' is not waiting on its pull request (it is working or gone); send it once it is.`,
  );
}
