import { type OverlapSubject, type TouchedFile, repoRelative } from '../../core/overlapIndex';
import { ok } from '../../core/result';
import { TaskStatus } from '../../core/taskMachine';
import { WorkerState } from '../../core/workerMachine';
import { RunOnceScheduler } from '../../base/async';
import { DisposableBase } from '../../base/lifetime';
import type { Clock, GitPort } from '../ports';
import {
  copyTouchedToParent,
  deleteOverlapChoice,
  deleteOverlapChoicesOf,
  deleteStaleOverlapChoices,
  deleteTaskPathsOf,
  deleteTouchedOfTask,
  deleteTouchedOfWorker,
  deleteUnheldTouched,
  findOverlapSubject,
  findWorkerHolding,
  listDuePlans,
  listSharers,
  listTouchedTasksOfWorker,
  listWorkers,
  overlapHolderStates,
} from '../queries';
import type { WorkerRow } from '../rows';
import type { Transactor } from '../transactor';
import type { EngineEvent } from '../unit';
import { addTouched, changedPairs, readAround, readAroundAfter, writeTouched } from './overlapStore';

export interface OverlapTrackerSettings {
  /** How long after an agent's last edit its worktree's diff is read again (edits come in bursts). */
  readonly refreshDelayMs: number;
  readonly log?: (line: string) => void;
}

export const defaultOverlapSettings: OverlapTrackerSettings = { refreshDelayMs: 400 };

const holdingStates: ReadonlySet<string> = new Set(overlapHolderStates);

/** Statuses after which a task's choices and hints are over (Queued keeps them: a task run after another comes back). */
const over: ReadonlySet<string> = new Set([TaskStatus.Done, TaskStatus.Cancelled, TaskStatus.Failed, TaskStatus.Idle]);

/** What the tracker needs of the rest of the engine. */
export interface OverlapTrackerHooks {
  /** Whether this owner runs the worker's agent and holds its worktree (with several owners: its machine's). */
  readonly runsHere: (worker: WorkerRow) => boolean;
  /** A `rebase-when-merged` plan this owner took: its other task merged. */
  readonly onPlanDue: (taskId: string, otherId: string) => void;
}

/**
 * Keeps the store's overlap rows (queries/overlaps.ts) up to date from what the engine commits
 * (docs/overlaps.md): an agent's edit, reported with its heartbeat (`touched`), adds the file at
 * once, so a second agent's edit is flagged without waiting for git; the worktree's diff against
 * the base, read a little after the last edit and on submit, then replaces the guess with the
 * files and line ranges git sees. Each change is written as the difference from what the store
 * had, in a transaction of its own that is not fsync'd (the worktrees can always be read again);
 * when it changes a task's overlaps, the tasks concerned and their workers are announced as
 * `rowsChanged`, which views (and, on a shared store, the other owners') read rows again on.
 */
export class OverlapTracker extends DisposableBase {
  private readonly refreshes = new Map<string, RunOnceScheduler>();
  /** A long-running owner (`refreshHeld`): reads worktree diffs and carries out plans. A one-shot CLI call only records. */
  private owning = false;

  constructor(
    private readonly tx: Transactor,
    private readonly git: GitPort,
    private readonly clock: Clock,
    private readonly hooks: OverlapTrackerHooks,
    private readonly settings: OverlapTrackerSettings = defaultOverlapSettings,
  ) {
    super();
    this._register(tx.onDidCommit((events) => this.onCommit(events)));
    this._register({
      dispose: () => {
        for (const scheduler of this.refreshes.values()) scheduler.dispose();
        this.refreshes.clear();
      },
    });
  }

  /**
   * After an owner (re)starts: rows no holding worker stands behind are cleared, the worktrees of
   * this machine's workers holding work are read again, and plans whose other task merged meanwhile
   * are carried out.
   */
  refreshHeld(): void {
    this.owning = true;
    this.tx.internal(
      'overlaps',
      (unit) => {
        deleteUnheldTouched(unit.tx);
        deleteStaleOverlapChoices(unit.tx);
        return ok(undefined);
      },
      { durable: false },
    );
    const workers = this.tx.read((reader) =>
      listWorkers(reader).filter((worker) => worker.task_id && holdingStates.has(worker.state) && this.hooks.runsHere(worker)),
    );
    for (const { id } of workers) this.scheduleRefresh(id, 0);
    this.runDuePlans();
  }

  /** Another owner of a shared store committed a change: a task of theirs may have merged. */
  noteExternal(): void {
    if (!this.isDisposed) this.runDuePlans();
  }

  /** Reads the worker's worktree diff now (tests and the action flows wait on it). */
  async refresh(workerId: string): Promise<void> {
    const subject = this.subjectOf(workerId);
    if (!subject || !this.git.touchedFiles) return;
    const touched = await this.git.touchedFiles(workerId).catch((error: unknown) => {
      this.settings.log?.(`overlaps: could not read the changes of ${workerId}: ${String(error)}`);
      return undefined;
    });
    if (!touched?.ok || this.isDisposed) return;
    // The worker may have let go of the task while git ran.
    const now = this.subjectOf(workerId);
    if (now?.taskId !== subject.taskId) return;
    this.record(now, touched.value);
  }

  private onCommit(events: readonly EngineEvent[]): void {
    if (this.isDisposed) return;
    const ended: EngineEvent[] = [];
    let merged = false;
    for (const event of events) {
      switch (event.kind) {
        case 'heartbeat':
          if (event.touched?.length) this.noteEdits(event.workerId, event.touched);
          break;
        case 'worker':
          // Submitted work is read once more as it is; a worker starting again reads what its branch holds.
          if (event.to === WorkerState.InReview || (event.to === WorkerState.Working && event.from !== WorkerState.Stale))
            this.scheduleRefresh(event.id, 0);
          if (holdingStates.has(event.from) && !holdingStates.has(event.to)) ended.push(event);
          break;
        case 'task':
          if (event.from === TaskStatus.Running && event.to !== TaskStatus.Running) ended.push(event);
          if (event.to === TaskStatus.Done) merged = true;
          break;
        default:
          break;
      }
    }
    if (ended.length) this.forget(ended, lastStatuses(events));
    if (merged) this.runDuePlans();
  }

  /**
   * Workers that let go of their task and tasks that stopped running: their rows go, a finished
   * chain step's files first becoming its chain's expected files; a task that is over loses its
   * choices and hints. The tasks that overlapped them are announced.
   */
  private forget(events: readonly EngineEvent[], statuses: ReadonlyMap<string, string>): void {
    this.tx.internal(
      'overlaps',
      (unit) => {
        const tasks = new Set<string>();
        const workers = new Set<string>();
        const noteSharers = (taskId: string) =>
          listSharers(unit.tx, taskId).forEach((sharer) => (tasks.add(sharer.task_id), workers.add(sharer.worker_id)));
        // Before any row goes: a merge moves the worker (its rows) before the task.
        for (const event of events) if (event.kind === 'task' && event.to === TaskStatus.Done) copyTouchedToParent(unit.tx, event.id);
        for (const event of events) {
          if (event.kind === 'task') {
            noteSharers(event.id);
            deleteTouchedOfTask(unit.tx, event.id);
            // Where the commit left it: run after another, a task is cancelled and queued again in one step.
            const status = statuses.get(event.id) ?? event.to;
            if (over.has(status)) deleteOverlapChoicesOf(unit.tx, event.id);
            if (status === TaskStatus.Done || status === TaskStatus.Cancelled) deleteTaskPathsOf(unit.tx, event.id);
          } else if (event.kind === 'worker') {
            listTouchedTasksOfWorker(unit.tx, event.id).forEach(noteSharers);
            deleteTouchedOfWorker(unit.tx, event.id);
          }
        }
        if (tasks.size) unit.events.push({ kind: 'rowsChanged', workers: [...workers], tasks: [...tasks] });
        return ok(undefined);
      },
      { durable: false },
    );
  }

  /**
   * Plans whose other task merged: each is taken (deleted, so that one owner carries it out) by the
   * owner that holds the planning task's worktree, or dropped when no worker holds that task (its
   * next attempt starts from its branch and is rebased at its merge). Only a long-running owner.
   */
  private runDuePlans(): void {
    if (!this.owning) return;
    const due = this.tx.read((reader) => listDuePlans(reader).map((plan) => ({ plan, holder: findWorkerHolding(reader, plan.task_id) })));
    for (const { plan, holder } of due) {
      if (holder && !this.hooks.runsHere(holder)) continue;
      const taken = this.tx.internal('overlaps', (unit) => ok(deleteOverlapChoice(unit.tx, plan.task_id, plan.other_id, plan.choice)), {
        durable: false,
      });
      if (taken.ok && taken.value === 1 && holder) this.hooks.onPlanDue(plan.task_id, plan.other_id);
    }
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
    if (files.length) {
      this.tx.internal(
        'overlaps',
        (unit) => {
          const sharers = addTouched(
            unit.tx,
            subject,
            files.map((file) => file.path),
          );
          if (sharers.size)
            unit.events.push({
              kind: 'rowsChanged',
              workers: [subject.workerId, ...sharers.values()],
              tasks: [subject.taskId, ...sharers.keys()],
            });
          return ok(undefined);
        },
        { durable: false },
      );
    }
    this.scheduleRefresh(workerId, this.settings.refreshDelayMs);
  }

  /**
   * Writes what the worktree's diff says the task touched (the difference from the store's rows) and
   * announces the tasks whose overlaps that changed: the task itself and those whose pair with it
   * changed. Only this task's pairs are computed, from its rows and those of the tasks sharing its files.
   */
  private record(subject: OverlapSubject & { readonly workerId: string }, files: readonly TouchedFile[]): void {
    this.tx.internal(
      'overlaps',
      (unit) => {
        const before = readAround(unit.tx, subject.taskId);
        const written = writeTouched(unit.tx, subject, before, files, 'set');
        if (!written.changed) return ok(undefined);
        const after = readAroundAfter(unit.tx, before, subject, written);
        const others = changedPairs(before.index, after.index, subject.taskId);
        if (others.length) {
          const workers = [subject.workerId, ...others.flatMap((other) => after.holders.get(other) ?? before.holders.get(other) ?? [])];
          unit.events.push({ kind: 'rowsChanged', workers, tasks: [subject.taskId, ...others] });
        }
        return ok(undefined);
      },
      { durable: false },
    );
  }

  private subjectOf(workerId: string): (OverlapSubject & { readonly workerId: string }) | undefined {
    return this.tx.read((reader) => findOverlapSubject(reader, workerId));
  }

  private scheduleRefresh(workerId: string, delayMs: number): void {
    if (this.isDisposed || !this.owning || !this.git.touchedFiles) return;
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
}

/** Each task's status at the end of a commit's events. */
function lastStatuses(events: readonly EngineEvent[]): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const event of events) if (event.kind === 'task') statuses.set(event.id, event.to);
  return statuses;
}
