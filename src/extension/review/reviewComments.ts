import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { TaskStatus } from '../../core/taskMachine';
import { WorkerState } from '../../core/workerMachine';
import { send } from '../commands/pickers';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';
import { taskNameWithId, taskTitles } from '../taskNames';
import { rangeChanged } from './lineChanges';
import { formatReviewNote, isRepositoryPath, linesOf, quoteComments, readWorktreeFile as readText } from './reviewNote';
import { openPullRequest, pickReview } from './reviewPick';
import { type ReviewStore, type ReviewThread, type TaskReview, ThreadStatus, baselineLimit, threadLabel } from './reviewStore';

/** The comment controller's id: package.json's `commentController == …` menus name it. */
export const reviewControllerId = 'foreman-review';

/** The task whose changes are shown, as Show Changes opened them. */
export interface ReviewScope {
  readonly session: ForemanSession;
  readonly taskId: string;
  readonly workerId: string;
  readonly worktree: string;
  /** The worktree's files in the diff (absolute paths): only these take comments. */
  readonly files: readonly string[];
}

const keyOf = (root: string, taskId: string) => `${root}\0${taskId}`;
const answeredStates: ReadonlySet<string> = new Set([WorkerState.InReview, WorkerState.Approved]);
const finishedTasks: ReadonlySet<string> = new Set([TaskStatus.Done, TaskStatus.Cancelled]);

/**
 * Line comments on a task's changes for its agent (issue 32 item 3). Show Changes makes the
 * worktree's changed files commentable; the threads are kept per task in the workspace state;
 * Send Review to Agent turns the open ones into one request-changes note, and when the agent's next
 * attempt is in review each sent thread is resolved if that attempt changed its lines, else open.
 */
export class ReviewComments implements vscode.Disposable {
  private readonly controller: vscode.CommentController;
  private readonly reviews = new Map<string, TaskReview>();
  private readonly threads = new Map<string, vscode.CommentThread>();
  private readonly placed = new WeakMap<vscode.CommentThread, { readonly key: string; readonly id: string }>();
  /** Absolute path → the review its comments belong to. */
  private readonly commentable = new Map<string, string>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly registry: SessionRegistry,
    private readonly store: ReviewStore,
  ) {
    this.controller = vscode.comments.createCommentController(reviewControllerId, vscode.l10n.t('Foreman Review'));
    this.controller.options = {
      prompt: vscode.l10n.t('Comment for the agent'),
      placeHolder: vscode.l10n.t('What should the agent change here? Send Review to Agent sends every open comment.'),
    };
    this.controller.commentingRangeProvider = {
      provideCommentingRanges: (document) =>
        document.uri.scheme === 'file' && this.commentable.has(document.uri.fsPath)
          ? [new vscode.Range(0, 0, Math.max(document.lineCount - 1, 0), 0)]
          : [],
    };
    for (const review of store.load()) {
      const key = keyOf(review.root, review.taskId);
      this.reviews.set(key, review);
      for (const thread of review.threads) this.place(key, review, thread);
    }
    this.subscription = registry.onDidChange(() => this.answerSent());
  }

  /** Show Changes opened a task's diff: its worktree files take comments. */
  showing(scope: ReviewScope): void {
    const key = keyOf(scope.session.root, scope.taskId);
    const known = this.reviews.get(key);
    // The task may have moved to another worker since: its comments follow it.
    const base = { root: scope.session.root, taskId: scope.taskId, workerId: scope.workerId, worktree: scope.worktree };
    this.reviews.set(key, known ? { ...known, ...base } : { ...base, threads: [], baselines: {} });
    for (const file of scope.files) this.commentable.set(file, key);
  }

  /** A comment written in a thread (a new thread or a reply): kept, shown, saved. */
  add(reply: vscode.CommentReply): void {
    const text = reply.text.trim();
    if (!text) return;
    const thread = reply.thread;
    const placed = this.placed.get(thread);
    const key = placed?.key ?? this.commentable.get(thread.uri.fsPath);
    const review = key === undefined ? undefined : this.reviews.get(key);
    if (!key || !review) {
      thread.dispose();
      void vscode.window.showErrorMessage(
        vscode.l10n.t("Foreman: comments go on the changed files of a task in review; open Show Changes on the worker's task first."),
      );
      return;
    }
    const existing = placed && review.threads.find((candidate) => candidate.id === placed.id);
    if (existing) {
      // A reply to a thread already sent (or answered) is something new to send.
      const { id, file, startLine, endLine } = existing;
      this.update(key, { id, file, startLine, endLine, comments: [...existing.comments, text], status: ThreadStatus.open });
      return;
    }
    const file = path.relative(review.worktree, thread.uri.fsPath).split(path.sep).join('/');
    if (!isRepositoryPath(file)) {
      thread.dispose();
      void vscode.window.showErrorMessage(vscode.l10n.t('Foreman: {0} is not in the worktree {1}.', thread.uri.fsPath, review.worktree));
      return;
    }
    const range = thread.range ?? new vscode.Range(0, 0, 0, 0);
    const record: ReviewThread = {
      id: randomBytes(6).toString('hex'),
      file,
      startLine: range.start.line + 1,
      endLine: range.end.line + 1,
      comments: [text],
      status: ThreadStatus.open,
    };
    this.placed.set(thread, { key, id: record.id });
    this.threads.set(record.id, thread);
    this.update(key, record);
  }

  /** Removes a thread and its comments. */
  discard(thread: vscode.CommentThread): void {
    const placed = this.placed.get(thread);
    thread.dispose();
    if (!placed) return;
    this.threads.delete(placed.id);
    const review = this.reviews.get(placed.key);
    if (review) this.replace(placed.key, { ...review, threads: review.threads.filter((candidate) => candidate.id !== placed.id) });
  }

  /**
   * Sends every open comment of the thread's task (or of the one task that has some) to its agent
   * as one request-changes note: its session resumes with the note on the next attempt.
   */
  async send(thread?: vscode.CommentThread): Promise<void> {
    const key = thread ? this.placed.get(thread)?.key : await pickReview(this.reviews, this.registry);
    const review = key === undefined ? undefined : this.reviews.get(key);
    if (!key || !review) return;
    const session = this.registry.get(review.root);
    const worker = session?.snapshot().workers.find((candidate) => candidate.id === review.workerId);
    if (!session || !worker) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Foreman: {0} is not open in this window.', review.root));
      return;
    }
    const name = taskNameWithId(taskTitles(session.snapshot()), review.taskId);
    // With an open pull request, the comments people left there go too (send-review), and the
    // worker may be waiting on it (APPROVED) as well as in review.
    const pull = openPullRequest(session.snapshot(), review.taskId);
    const states: readonly string[] = pull ? [WorkerState.InReview, WorkerState.Approved] : [WorkerState.InReview];
    if (worker.taskId !== review.taskId || !states.includes(worker.state)) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t(
          'Foreman: a review is sent while the task is in review; {0} is {1}, not reviewing {2}.',
          worker.id,
          worker.state,
          name,
        ),
      );
      return;
    }
    const open = review.threads.filter((candidate) => candidate.status === ThreadStatus.open);
    const quoted = quoteComments(review.worktree, open);
    const formatted = formatReviewNote(quoted, vscode.l10n);
    if (!formatted.ok && !(pull?.comments && open.length === 0)) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Foreman: {0}', formatted.message));
      return;
    }
    const note = formatted.ok ? { note: formatted.note } : {};
    // Before the request: the agent may start (and change the files) as soon as it is made.
    const sentAt = Date.now();
    const baselines = { ...review.baselines };
    for (const file of new Set(open.map((candidate) => candidate.file))) {
      const text = readText(review.worktree, file);
      if (text !== undefined && text.length <= baselineLimit) baselines[file] = text;
      else delete baselines[file];
    }
    const result = pull
      ? await send(session, { command: 'send-review', args: { task: review.taskId, ...note } })
      : formatted.ok
        ? await send(session, { command: 'request-changes', args: { worker: worker.id, note: formatted.note } })
        : undefined;
    if (!result?.ok) return;
    const pulled = (result.value as { comments?: number } | undefined)?.comments ?? 0;
    const sent = new Map(quoted.map((thread) => [thread.id, thread.code]));
    this.replace(key, {
      ...review,
      baselines,
      threads: review.threads.map((candidate) => {
        const code = sent.get(candidate.id);
        return sent.has(candidate.id)
          ? { ...candidate, status: ThreadStatus.sent, sentAt, ...(code ? { sentCode: [...code] } : {}) }
          : candidate;
      }),
    });
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Foreman: sent {0} review comment(s) on {1} to {2}. Each thread resolves when the next attempt changes its lines.',
        open.length + pulled,
        name,
        worker.id,
      ),
    );
  }

  dispose(): void {
    this.subscription.dispose();
    this.controller.dispose();
  }

  /**
   * Sent threads whose task is back in review after they were sent: resolved when that attempt
   * changed their lines, open again when it left them alone. A finished task's comments are let go.
   */
  private answerSent(): void {
    for (const [key, review] of this.reviews) {
      if (review.threads.length === 0) continue;
      const snapshot = this.registry.get(review.root)?.snapshot();
      if (!snapshot) continue;
      if (finishedTasks.has(snapshot.tasks.find((task) => task.id === review.taskId)?.status ?? '')) {
        for (const thread of review.threads) this.threads.get(thread.id)?.dispose();
        this.replace(key, { ...review, threads: [] });
        continue;
      }
      const worker = snapshot.workers.find((candidate) => candidate.id === review.workerId);
      if (!worker || worker.taskId !== review.taskId || !answeredStates.has(worker.state)) continue;
      const answered = review.threads.filter(
        (thread) => thread.status === ThreadStatus.sent && thread.sentAt !== undefined && thread.sentAt < worker.stateChangedAt,
      );
      if (answered.length === 0) continue;
      const verdicts = new Map(answered.map((thread) => [thread.id, this.changedSince(review, thread)]));
      const threads = review.threads.map((thread) => {
        const changed = verdicts.get(thread.id);
        return changed === undefined ? thread : { ...thread, status: changed ? ThreadStatus.resolved : ThreadStatus.open };
      });
      const stillSent = new Set(threads.filter((thread) => thread.status === ThreadStatus.sent).map((thread) => thread.file));
      const baselines = Object.fromEntries(Object.entries(review.baselines).filter(([file]) => stillSent.has(file)));
      this.replace(key, { ...review, threads, baselines });
    }
  }

  private changedSince(review: TaskReview, thread: ReviewThread): boolean {
    const now = readText(review.worktree, thread.file) ?? '';
    const before = review.baselines[thread.file];
    if (before !== undefined) return rangeChanged(before, now, thread.startLine, thread.endLine);
    const lines = linesOf(now).slice(thread.startLine - 1, thread.endLine);
    return JSON.stringify(lines) !== JSON.stringify(thread.sentCode ?? []);
  }

  private update(key: string, record: ReviewThread): void {
    const review = this.reviews.get(key);
    if (!review) return;
    const known = review.threads.some((thread) => thread.id === record.id);
    const threads = known ? review.threads.map((thread) => (thread.id === record.id ? record : thread)) : [...review.threads, record];
    this.replace(key, { ...review, threads });
  }

  /** Keeps a task's review, redraws its threads and saves every review. */
  private replace(key: string, review: TaskReview): void {
    this.reviews.set(key, review);
    for (const record of review.threads) this.place(key, review, record);
    void this.store.save([...this.reviews.values()]);
  }

  /** Draws a thread as its record says, creating it when it is not shown yet (after a reload). */
  private place(key: string, review: TaskReview, record: ReviewThread): void {
    let thread = this.threads.get(record.id);
    if (!thread) {
      const uri = vscode.Uri.file(path.join(review.worktree, ...record.file.split('/')));
      thread = this.controller.createCommentThread(uri, new vscode.Range(record.startLine - 1, 0, record.endLine - 1, 0), []);
      this.threads.set(record.id, thread);
      this.placed.set(thread, { key, id: record.id });
      this.commentable.set(uri.fsPath, key);
    }
    const author = { name: vscode.l10n.t('Reviewer') };
    thread.comments = record.comments.map((body) => ({ body, mode: vscode.CommentMode.Preview, author }));
    thread.contextValue = record.status;
    thread.canReply = true;
    thread.state = record.status === ThreadStatus.resolved ? vscode.CommentThreadState.Resolved : vscode.CommentThreadState.Unresolved;
    thread.label = threadLabel(record, review.workerId, vscode.l10n);
  }
}
