import { hasAttemptsLeft, retryDelay, type BackoffSettings } from '../core/policies';
import { type Result, ok } from '../core/result';
import { TaskStatus } from '../core/taskMachine';
import type { ChainCoordinator } from './chainCoordinator';
import { deleteTaskClaim, findTask } from './queries';
import type { TaskRow, WorkerRow } from './rows';
import { moveTask } from './transitions';
import type { Unit } from './unit';

/**
 * The task's side of a worker letting go of it (stateService.ts moves the worker, in the same
 * transaction): the task's guarded move and its claim dropped, and the chain told once the task
 * has ended for good. Callers run these inside a Unit; nothing here does I/O.
 */

/** The worker's branch is in the base: its task is Done. */
export function completeTask(
  unit: Unit,
  chains: ChainCoordinator,
  task: TaskRow,
  result: string | null,
  metadata: Record<string, unknown>,
): Result<void> {
  const done = moveTask(unit, task, 'complete', { set: { finished_at: unit.now, result, worker_id: null }, metadata });
  if (!done.ok) return done;
  deleteTaskClaim(unit.tx, task.id);
  return chains.onTaskFinished(unit, task.id);
}

/**
 * A failed attempt's running task fails; with attempts left (and not `final`) it is queued again
 * after a backoff. True when it was queued again: its worker is then freed.
 */
export function failTask(
  unit: Unit,
  chains: ChainCoordinator,
  backoff: BackoffSettings,
  worker: WorkerRow,
  reason: string,
  final: boolean,
): Result<boolean> {
  const task = worker.task_id ? findTask(unit.tx, worker.task_id) : undefined;
  if (!task || task.status !== TaskStatus.Running) return ok(false);
  const failed = moveTask(unit, task, 'fail', { set: { finished_at: unit.now, last_error: reason }, reason });
  if (!failed.ok) return failed;
  deleteTaskClaim(unit.tx, task.id);
  const maxAttempts = worker.max_attempts ?? task.max_attempts;
  if (final || !hasAttemptsLeft(task.attempt, maxAttempts)) {
    const chained = chains.onTaskFinished(unit, task.id);
    return chained.ok ? ok(false) : chained;
  }
  const delay = retryDelay(backoff, task.attempt);
  const requeued = moveTask(unit, { ...task, status: failed.value }, 'retry', {
    set: { scheduled_for: unit.now + delay, worker_id: null },
    reason: `attempt ${task.attempt} of ${maxAttempts} failed; retry in ${Math.round(delay / 1000)}s`,
  });
  return requeued.ok ? ok(true) : requeued;
}

/** The task of a worker that could not run it goes back to the queue as it was before the claim. */
export function returnTask(unit: Unit, worker: WorkerRow, reason: string): Result<void> {
  const task = worker.task_id ? findTask(unit.tx, worker.task_id) : undefined;
  if (!task || task.status !== TaskStatus.Running) return ok(undefined);
  const failed = moveTask(unit, task, 'fail', { set: { finished_at: unit.now, last_error: reason }, reason });
  if (!failed.ok) return failed;
  deleteTaskClaim(unit.tx, task.id);
  const requeued = moveTask(unit, { ...task, status: failed.value }, 'retry', {
    set: { scheduled_for: unit.now, worker_id: null, attempt: Math.max(0, task.attempt - 1) },
    reason: `worker '${worker.id}' could not start its agent; attempt ${task.attempt} not counted`,
  });
  return requeued.ok ? ok(undefined) : requeued;
}

/** The running task of a cancelled worker is Cancelled. True when there was one. */
export function cancelHeldTask(unit: Unit, chains: ChainCoordinator, worker: WorkerRow): Result<boolean> {
  const task = worker.task_id ? findTask(unit.tx, worker.task_id) : undefined;
  if (!task || task.status !== TaskStatus.Running) return ok(false);
  const cancelled = moveTask(unit, task, 'cancel', { set: { finished_at: unit.now, worker_id: null } });
  if (!cancelled.ok) return cancelled;
  deleteTaskClaim(unit.tx, task.id);
  const chained = chains.onTaskFinished(unit, task.id);
  return chained.ok ? ok(true) : chained;
}
