import { type OverlapIndex, type OverlapSubject, type TouchedFile, repoRelative } from '../../core/overlapIndex';
import type { TaskOverlap } from '../../core/overlaps';
import { TaskStatus } from '../../core/taskMachine';
import { WorkerState } from '../../core/workerMachine';
import { RunOnceScheduler } from '../async';
import type { Disposable } from '../events';
import type { Clock, GitPort } from '../ports';
import { listWorkers } from '../queries';
import { findTask, findWorker } from '../rows';
import type { Transactor } from '../transactor';
import type { OverlapForecast } from './overlapForecast';
import type { EngineEvent } from '../unit';

export interface OverlapTrackerSettings {
  /** How long after an agent's last edit its worktree's diff is read again (edits come in bursts). */
  readonly refreshDelayMs: number;
  readonly log?: (line: string) => void;
}

export const defaultOverlapSettings: OverlapTrackerSettings = { refreshDelayMs: 400 };

/** Worker states in which the worker's task counts for overlaps: its agent works, or its work waits for review. */
const holdingStates: ReadonlySet<string> = new Set([
  WorkerState.Working,
  WorkerState.InReview,
  WorkerState.Approved,
  WorkerState.Stale,
  WorkerState.Paused,
]);

/**
 * Keeps the overlap index (core/overlapIndex.ts) up to date from what the engine commits
 * (docs/overlaps.md): an agent's edit, reported with its heartbeat (`touched`), adds the file at
 * once, so a second agent's edit is flagged without waiting for git; the worktree's diff against
 * the base, read a little after the last edit and on submit, then replaces the guess with the
 * files and line ranges git sees. When a task's overlaps change, its worker and task are announced
 * as `rowsChanged`, the event the views already re-read rows on.
 */
export class OverlapTracker implements Disposable {
  /** The worker that holds each tracked task. */
  private readonly holders = new Map<string, string>();
  private readonly refreshes = new Map<string, RunOnceScheduler>();
  private readonly subscription: Disposable;
  private disposed = false;
  /** Worktree diffs are read only by a long-running owner (from `refreshHeld`): a one-shot CLI call has no view to feed. */
  private readingDiffs = false;

  constructor(
    private readonly tx: Transactor,
    private readonly git: GitPort,
    readonly index: OverlapIndex,
    private readonly clock: Clock,
    private readonly settings: OverlapTrackerSettings = defaultOverlapSettings,
    /** Called with the tasks a commit finished (Done), after the index forgot them: the plans waiting on them. */
    private readonly onMerged: (taskId: string) => void = () => undefined,
    private readonly forecast?: OverlapForecast,
  ) {
    this.subscription = tx.onDidCommit((events) => this.onCommit(events));
  }

  /** A task's overlaps as status shows them. */
  overlapsOf(taskId: string | null): readonly TaskOverlap[] {
    return taskId === null ? [] : this.index.overlapsOf(taskId);
  }

  /** After an owner (re)starts: the worktrees of the workers holding work are read again. */
  refreshHeld(): void {
    this.readingDiffs = true;
    const workers = this.tx.read((reader) => listWorkers(reader).filter((worker) => worker.task_id && holdingStates.has(worker.state)));
    for (const { id } of workers) this.scheduleRefresh(id, 0);
  }

  /** Reads the worker's worktree diff now (tests and the action flows wait on it). */
  async refresh(workerId: string): Promise<void> {
    const subject = this.subjectOf(workerId);
    if (!subject || !this.git.touchedFiles) return;
    const touched = await this.git.touchedFiles(workerId).catch((error: unknown) => {
      this.settings.log?.(`overlaps: could not read the changes of ${workerId}: ${String(error)}`);
      return undefined;
    });
    if (!touched?.ok || this.disposed) return;
    // The worker may have let go of the task while git ran.
    const now = this.subjectOf(workerId);
    if (now?.taskId !== subject.taskId) return;
    this.update(now.taskId, () => this.index.set(now, touched.value));
  }

  /** Drops what is known of a task that no longer runs. */
  drop(taskId: string): void {
    if (!this.index.has(taskId)) return;
    this.update(taskId, () => this.index.remove(taskId));
    this.holders.delete(taskId);
  }

  private onCommit(events: readonly EngineEvent[]): void {
    if (this.disposed) return;
    for (const event of events) {
      switch (event.kind) {
        case 'heartbeat':
          if (event.touched?.length) this.noteEdits(event.workerId, event.touched);
          break;
        case 'worker':
          // Submitted work is read once more as it is; a worker starting again reads what its branch holds.
          if (event.to === WorkerState.InReview || (event.to === WorkerState.Working && event.from !== WorkerState.Stale))
            this.scheduleRefresh(event.id, 0);
          if (!holdingStates.has(event.to)) this.dropHeldBy(event.id);
          break;
        case 'task':
          if (event.to !== TaskStatus.Running) {
            if (event.to === TaskStatus.Done) this.rememberChainStep(event.id);
            this.drop(event.id);
            if (event.to === TaskStatus.Done) this.onMerged(event.id);
            if (event.to !== TaskStatus.Queued) this.index.forget(event.id);
          }
          break;
        default:
          break;
      }
    }
  }

  /** A finished chain step's files are what its next steps are expected to touch. */
  private rememberChainStep(taskId: string): void {
    const files = this.index.filesOf(taskId);
    if (files.length === 0 || !this.forecast) return;
    const parent = this.tx.read((reader) => findTask(reader, taskId)?.parent_task_id);
    if (parent) this.forecast.rememberStep(parent, files);
  }

  /** The agent's own word on what it edited: counted at once, then checked against the diff. */
  private noteEdits(workerId: string, paths: readonly string[]): void {
    const subject = this.subjectOf(workerId);
    if (!subject) return;
    const worktree = this.git.worktreePath(workerId);
    const files: TouchedFile[] = [];
    for (const path of paths) {
      const relative = worktree ? repoRelative(worktree, path) : undefined;
      if (relative) files.push({ path: relative });
    }
    if (files.length) this.update(subject.taskId, () => this.index.add(subject, files));
    this.scheduleRefresh(workerId, this.settings.refreshDelayMs);
  }

  private subjectOf(workerId: string): OverlapSubject | undefined {
    const found = this.tx.read((reader) => {
      const worker = findWorker(reader, workerId);
      if (!worker?.task_id || !holdingStates.has(worker.state)) return undefined;
      const task = findTask(reader, worker.task_id);
      return task ? { taskId: task.id, workerId: worker.id, title: task.title } : undefined;
    });
    if (found) this.holders.set(found.taskId, workerId);
    return found;
  }

  private dropHeldBy(workerId: string): void {
    for (const [taskId, holder] of this.holders) if (holder === workerId) this.drop(taskId);
  }

  private scheduleRefresh(workerId: string, delayMs: number): void {
    if (this.disposed || !this.readingDiffs || !this.git.touchedFiles) return;
    let scheduler = this.refreshes.get(workerId);
    if (!scheduler) {
      scheduler = new RunOnceScheduler(
        () => {
          this.refreshes.get(workerId)?.dispose();
          this.refreshes.delete(workerId);
          // A timer's read may meet a store that is away (a PostgreSQL outage): the next edit or submit reads again.
          this.refresh(workerId).catch((error: unknown) => this.settings.log?.(`overlaps: could not read ${workerId}: ${String(error)}`));
        },
        delayMs,
        this.clock,
      );
      this.refreshes.set(workerId, scheduler);
    }
    scheduler.schedule(delayMs);
  }

  /** A person's choice changed these tasks' overlaps (a plan, an ignored pair): views read them again. */
  announceTasks(taskIds: readonly string[]): void {
    this.announce(taskIds);
  }

  /**
   * Changes what one task touched and announces the tasks whose overlaps that changed: the task
   * itself and the others whose pair with it changed (a pair reads the same from both sides but for
   * its plan, which an edit does not change). Only this task's pairs are computed, not every sharer's.
   */
  private update(taskId: string, change: () => void): void {
    const before = this.pairsOf(taskId);
    change();
    const after = this.pairsOf(taskId);
    const others = [...new Set([...before.keys(), ...after.keys()])].filter((other) => before.get(other) !== after.get(other));
    if (others.length) this.announce([taskId, ...others]);
  }

  private pairsOf(taskId: string): Map<string, string> {
    return new Map(
      this.index.overlapsOf(taskId).map((overlap) => [overlap.taskId, `${overlap.hunks}\u0000${overlap.files.join('\u0000')}`]),
    );
  }

  /** Views read these tasks (and their workers) again: `rowsChanged`, as for rows written outside a transition. */
  private announce(taskIds: readonly string[]): void {
    const tasks = [...new Set(taskIds)];
    const workers = tasks.flatMap((taskId) => {
      const holder = this.holders.get(taskId);
      return holder ? [holder] : [];
    });
    this.tx.announce([{ kind: 'rowsChanged', workers, tasks }]);
  }

  dispose(): void {
    this.disposed = true;
    this.subscription.dispose();
    for (const scheduler of this.refreshes.values()) scheduler.dispose();
    this.refreshes.clear();
  }
}
