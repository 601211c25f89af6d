import type { CommandArgs } from '../core/requests';
import type { BackoffSettings } from '../core/policies';
import { type Result, notFound, ok, refused } from '../core/result';
import { TaskStatus } from '../core/taskMachine';
import { WorkerState, busyWorkerStates } from '../core/workerMachine';
import type { ChainCoordinator } from './chainCoordinator';
import { type ClaimedTask, type QueuePicker, notIdle } from './queuePicker';
import { findTask, findWorker, findWorkerHolding, findWorkerHoldingIn, insertWorker } from './queries';
import { type TaskRow, type WorkerRow, requireTask, requireWorker } from './rows';
import { cancelHeldTask, completeTask, failTask, returnTask } from './taskEnds';
import { assignClaimingWorker, checkAttempt, moveTask, moveWorker, moveWorkerToRow } from './transitions';
import type { OwnerIdentity } from './ports';
import type { Unit } from './unit';

export interface StateSettings {
  readonly defaultMaxAttempts: number;
  readonly backoff: BackoffSettings;
  readonly leaseMs: number;
  /** The owner this engine is, with several owners on one store (undefined: the only one). */
  readonly owner?: OwnerIdentity;
  /**
   * The owner whose lease the work this engine hands out hangs on: its own id once its lease runs
   * (a long-running owner), undefined for a one-shot engine, whose work is its host's owners' to take back.
   */
  readonly leaseHolder?: () => string | undefined;
}

/** How a worker's last error starts when its agent cannot run: the views and the dispatcher read it. */
export const needsSetup = 'needs setup: ';

/** What a resumed agent is told: it continues its own session, which remembers the task. */
export const resumeNote = 'Your usage limit has reset. Continue the task where you left off.';

/** What a failure ends: this attempt (retried while attempts remain), the task for good, or the worker's run until it is set up. */
export type FailEnd = 'attempt' | 'final' | 'setup';

/** What a worker looks like after it lets go of its task. */
const released = { task_id: null, branch: null, attempt: 0, note: null, summary: null } as const;
/** What an assignment clears: the last attempt's error, note and summary. */
const cleared = { last_error: null, note: null, summary: null } as const;

/**
 * Worker lifecycle commands: every one is a pair of guarded moves (worker and task together, one
 * transaction) plus the chain's reaction; the task's side of a worker letting go is taskEnds.ts.
 * Callers run them inside a Unit; nothing here does I/O.
 */
export class StateService {
  constructor(
    private readonly settings: StateSettings,
    private readonly picker: QueuePicker,
    private readonly chains: ChainCoordinator,
  ) {}

  addWorker(unit: Unit, args: CommandArgs<'worker.add'>): Result<WorkerRow> {
    if (findWorker(unit.tx, args.id)) return refused('exists', `A worker '${args.id}' already exists; pick another id.`, { id: args.id });
    insertWorker(unit.tx, args.id, args.agent, args.maxAttempts ?? null, unit.now, args.host ?? this.settings.owner?.host ?? null);
    unit.events.push({ kind: 'created', entity: 'worker', id: args.id });
    return ok(requireWorker(unit.tx, args.id));
  }

  assign(unit: Unit, workerId: string, taskId: string): Result<ClaimedTask> {
    const worker = findWorker(unit.tx, workerId);
    if (!worker) return notFound('worker', workerId);
    const task = findTask(unit.tx, taskId);
    if (!task) return notFound('task', taskId);
    if (worker.state !== WorkerState.Idle) {
      return refused('workerBusy', `Worker '${workerId}' is ${worker.state}, not IDLE; only an idle worker can be assigned.`, {
        from: worker.state,
        to: WorkerState.Assigned,
      });
    }
    if (task.planning_phase !== 'none') return refused('chainParent', `Task '${taskId}' is a chain parent; assign its tasks instead.`);
    if (task.blocked_by_task_id) {
      return refused('blocked', `Task '${taskId}' is blocked by '${task.blocked_by_task_id}', which must be done first.`, {
        blockedBy: task.blocked_by_task_id,
      });
    }
    if (task.status !== TaskStatus.Queued && task.status !== TaskStatus.Idle) {
      return refused('illegalTransition', `Task '${taskId}' is ${task.status}; only a queued or idle task can be assigned.`, {
        from: task.status,
        to: TaskStatus.Running,
      });
    }
    const claimed = this.picker.claimTask(unit, task, workerId);
    if (!claimed) return refused('conflict', `Task '${taskId}' was claimed by someone else; pick another.`);
    return this.takeTask(unit, worker, claimed);
  }

  /** `foreman claim`: the worker takes the next runnable task, or nothing when the queue is empty. */
  claim(unit: Unit, workerId: string): Result<ClaimedTask | null> {
    // PostgreSQL: read, claim and move in one statement (issue 29), with the same rows and answers.
    const whole = this.picker.claimForWorker(unit, workerId, { host: this.settings.owner?.host, holder: this.settings.leaseHolder?.() });
    if (whole) return whole;
    // The task first, then the worker's move guarded by IDLE (no read before it); a refusal rolls the
    // task's claim back. The worker is read only then, or when the queue is empty, to answer which.
    const claimed = this.picker.claimNext(unit, workerId);
    const lease = { ownerHost: this.settings.owner?.host ?? null, holder: this.settings.leaseHolder?.() ?? null };
    if (claimed && assignClaimingWorker(unit, workerId, claimed, lease)) return ok(claimed);
    const worker = findWorker(unit.tx, workerId);
    if (!worker) return notFound('worker', workerId);
    if (worker.state !== WorkerState.Idle) return notIdle(workerId, worker.state);
    if (claimed) throw new Error(`bug: idle worker ${workerId} refused its claim of ${claimed.id}`);
    return ok(null);
  }

  takeTask(unit: Unit, worker: WorkerRow, claimed: ClaimedTask): Result<ClaimedTask> {
    const moved = moveWorker(unit, worker, 'assign', {
      set: { task_id: claimed.id, branch: claimed.branch, attempt: claimed.attempt, ...cleared, owner_id: this.leaseHolderFor(worker) },
      metadata: { taskId: claimed.id, attempt: claimed.attempt },
    });
    return moved.ok ? ok(claimed) : moved;
  }

  /**
   * Whose lease this work now hangs on (if that owner stops renewing it, the others take the task
   * back): this owner's when it runs the worker's agents; for another machine's worker, nobody's
   * (its host's owners answer for it: ownerLease.ts).
   */
  private leaseHolderFor(worker: WorkerRow): string | null {
    const holder = this.settings.leaseHolder?.();
    if (holder === undefined) return null;
    return worker.host === null || worker.host === this.settings.owner?.host ? holder : null;
  }

  start(unit: Unit, workerId: string): Result<WorkerRow> {
    return this.moveHolder(unit, workerId, undefined, (worker) => moveWorker(unit, worker, 'start'));
  }

  submit(unit: Unit, args: CommandArgs<'submit'>): Result<WorkerRow> {
    return this.moveHolder(unit, args.worker, args.attempt, (worker) =>
      moveWorker(unit, worker, 'submit', { set: { summary: args.summary ?? null }, reason: args.summary }),
    );
  }

  approve(unit: Unit, workerId: string): Result<WorkerRow> {
    return this.moveHolder(unit, workerId, undefined, (worker) => moveWorker(unit, worker, 'approve'));
  }

  requestChanges(unit: Unit, workerId: string, note: string): Result<WorkerRow> {
    return this.moveHolder(unit, workerId, undefined, (worker) =>
      moveWorker(unit, worker, 'requestChanges', { set: { note }, reason: note }),
    );
  }

  /** A merge conflict sends an approved worker back to work with the conflicted files as its note. */
  mergeConflict(unit: Unit, workerId: string, files: readonly string[]): Result<WorkerRow> {
    const note = `Merge conflict in: ${files.join(', ')}`;
    return this.moveHolder(unit, workerId, undefined, (worker) =>
      moveWorker(unit, worker, 'mergeConflict', { set: { note }, reason: note, metadata: { files } }),
    );
  }

  /**
   * What the task's pull request says — a failed check, a conflict with its base, people's line
   * comments — sends the approved worker back to work, with it as its note.
   */
  fromPullRequest(
    unit: Unit,
    workerId: string,
    trigger: 'checkFailed' | 'mergeConflict' | 'reviewComments',
    note: string,
    metadata: Record<string, unknown>,
  ): Result<WorkerRow> {
    return this.moveHolder(unit, workerId, undefined, (worker) =>
      moveWorker(unit, worker, trigger, { set: { note }, reason: note, metadata }),
    );
  }

  /** The task's pull request was closed unmerged: the work is back in review, nothing lost. */
  pullRequestClosed(unit: Unit, workerId: string, reason: string): Result<WorkerRow> {
    return this.moveHolder(unit, workerId, undefined, (worker) => moveWorker(unit, worker, 'pullRequestClosed', { reason }));
  }

  /** The worker's branch is in the base: the task is done and the worker is free again. */
  merged(unit: Unit, workerId: string, metadata: Record<string, unknown> = {}): Result<WorkerRow> {
    const worker = findWorker(unit.tx, workerId);
    if (!worker) return notFound('worker', workerId);
    const task = worker.task_id ? findTask(unit.tx, worker.task_id) : undefined;
    const moved = moveWorker(unit, worker, 'merge', { metadata });
    if (!moved.ok) return moved;
    if (task) {
      const done = completeTask(unit, this.chains, task, worker.summary, metadata);
      if (!done.ok) return done;
    }
    const recycled = moveWorker(unit, { ...worker, state: moved.value }, 'recycle', { set: released });
    return recycled.ok ? ok(requireWorker(unit.tx, workerId)) : recycled;
  }

  /**
   * A failed attempt (ARCHITECTURE §3): the task fails; with attempts left it is queued again after
   * a backoff and the worker is freed, otherwise (or when `final`) the task stays Failed and the
   * worker FAILED, holding it for a person to see; `retry` grants another attempt. With `setup`
   * the fault is the worker's (its agent cannot run): the worker stays FAILED, "needs setup", and
   * claims nothing until a person resets it; the task is queued again at once, its attempt unspent.
   */
  fail(unit: Unit, workerId: string, reason: string, attempt?: number, end: FailEnd = 'attempt'): Result<WorkerRow> {
    return this.moveHolder(unit, workerId, attempt, (worker) => {
      const trigger = worker.state === WorkerState.Assigned ? 'setupFailed' : worker.state === WorkerState.Stale ? 'dead' : 'workFailed';
      const said = end === 'setup' ? `${needsSetup}${reason}` : reason;
      const moved = moveWorker(unit, worker, trigger, { set: { last_error: said }, reason: said });
      if (!moved.ok) return moved;
      const failed = { ...worker, state: moved.value };
      if (end === 'setup') {
        const returned = returnTask(unit, failed, said);
        return returned.ok ? ok(failed.state) : returned;
      }
      const requeued = failTask(unit, this.chains, this.settings.backoff, failed, reason, end === 'final');
      if (!requeued.ok || !requeued.value) return requeued.ok ? ok(failed.state) : requeued;
      return moveWorkerToRow(unit, failed, 'reset', { set: released, reason: 'attempt failed; task requeued' });
    });
  }

  /**
   * The agent hit a usage or rate limit: the worker waits, holding its task and its attempt, until
   * `until`; the monitor resumes it then (`resumeDue`), and the crew continues the same session.
   */
  pause(unit: Unit, args: CommandArgs<'pause'>): Result<WorkerRow> {
    return this.moveHolder(unit, args.worker, args.attempt, (worker) =>
      moveWorker(unit, worker, 'limitReached', {
        set: { last_error: args.reason, paused_until: args.until },
        reason: args.reason,
        metadata: { until: args.until },
      }),
    );
  }

  /** A PAUSED worker whose limit has reset goes back to work, told why it stopped. */
  resume(unit: Unit, worker: WorkerRow): Result<WorkerState> {
    return moveWorker(unit, worker, 'resume', {
      set: { paused_until: null, last_error: null, note: resumeNote },
      reason: 'the usage limit has reset',
    });
  }

  /** FAILED → IDLE (reset) or COMPLETED → IDLE (recycle); the worker lets go of its task. */
  reset(unit: Unit, workerId: string): Result<WorkerRow> {
    const worker = findWorker(unit.tx, workerId);
    if (!worker) return notFound('worker', workerId);
    const trigger = worker.state === WorkerState.Completed ? 'recycle' : 'reset';
    const moved = moveWorker(unit, worker, trigger, { set: released });
    return moved.ok ? ok(requireWorker(unit.tx, workerId)) : moved;
  }

  /** Queues a failed or cancelled task again and frees a FAILED worker still holding it. */
  retry(unit: Unit, taskId: string): Result<TaskRow> {
    const task = findTask(unit.tx, taskId);
    if (!task) return notFound('task', taskId);
    const holder = findWorkerHolding(unit.tx, taskId);
    if (holder && holder.state === WorkerState.Failed) {
      const freed = moveWorker(unit, holder, 'reset', { set: released, reason: `task '${taskId}' retried` });
      if (!freed.ok) return freed;
    }
    const maxAttempts = Math.max(task.max_attempts, task.attempt + 1);
    const moved = moveTask(unit, task, 'retry', { set: { scheduled_for: null, max_attempts: maxAttempts, worker_id: null } });
    if (!moved.ok) return moved;
    const chained = this.chains.onTaskRetried(unit, taskId);
    return chained.ok ? ok(requireTask(unit.tx, taskId)) : chained;
  }

  /** Cancels a worker's current task (and frees the worker), or a task by id. */
  cancel(unit: Unit, target: string): Result<{ worker?: string; task?: string }> {
    const worker = findWorker(unit.tx, target);
    if (worker) return this.cancelWorker(unit, worker);
    const task = findTask(unit.tx, target);
    if (!task) return { ...notFound('worker or task', target), message: `'${target}' is neither a worker nor a task.` };
    const holder = findWorkerHoldingIn(unit.tx, target, busyWorkerStates);
    if (holder) return this.cancelWorker(unit, holder);
    const moved = moveTask(unit, task, 'cancel', { set: { finished_at: unit.now } });
    if (!moved.ok) return moved;
    const chained = this.chains.onTaskFinished(unit, task.id);
    return chained.ok ? ok({ task: task.id }) : chained;
  }

  private cancelWorker(unit: Unit, worker: WorkerRow): Result<{ worker?: string; task?: string }> {
    const moved = moveWorker(unit, worker, 'cancel', { set: released, metadata: { taskId: worker.task_id } });
    if (!moved.ok) return moved;
    const cancelled = cancelHeldTask(unit, this.chains, worker);
    if (!cancelled.ok) return cancelled;
    return ok(cancelled.value && worker.task_id ? { worker: worker.id, task: worker.task_id } : { worker: worker.id });
  }

  /** Runs a move on a worker that must exist, after the fencing check on the attempt it claims. */
  private moveHolder(
    unit: Unit,
    workerId: string,
    attempt: number | undefined,
    move: (worker: WorkerRow) => Result<WorkerState | WorkerRow>,
  ): Result<WorkerRow> {
    const worker = findWorker(unit.tx, workerId);
    if (!worker) return notFound('worker', workerId);
    const fenced = checkAttempt(worker.attempt, attempt, `worker '${workerId}'`, 'this request');
    if (!fenced.ok) return fenced;
    const moved = move(worker);
    if (!moved.ok) return moved;
    // A move that answered the row (its UPDATE … RETURNING) needs no read after it; one that
    // answered only the new state does.
    return ok(typeof moved.value === 'string' ? requireWorker(unit.tx, workerId) : moved.value);
  }
}
