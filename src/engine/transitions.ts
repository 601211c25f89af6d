import { type Result, ok, refused } from '../core/result';
import { type TaskStatus, type TaskTrigger, nextTaskStatus } from '../core/taskMachine';
import { WorkerState, type WorkerTrigger, nextWorkerState } from '../core/workerMachine';
import {
  type ColumnValues,
  assignIdleWorker,
  insertTransition,
  updateTaskStatus,
  updateWorkerState,
  updateWorkerStateReturning,
} from './queries';
import type { TaskRow, WorkerRow } from './rows';
import type { Unit } from './unit';

/**
 * The only code that changes a worker's state or a task's status (STYLE rules 1 and 2): the next
 * state comes from the pure transition table, the UPDATE is guarded by the state just read, and
 * the audit row is written in the same transaction. Events are queued on the unit and fire only
 * after the commit.
 */

export interface MoveOptions {
  readonly reason?: string;
  /** Further columns to set in the same guarded UPDATE (names come from code, never from input). */
  readonly set?: ColumnValues;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** Writes the audit row of a transition that was applied by a statement outside moveWorker/moveTask. */
export function recordTransition(
  unit: Unit,
  entity: 'worker' | 'task',
  id: string,
  from: string,
  to: string,
  trigger: string,
  attempt: number | null,
  options: MoveOptions,
): void {
  insertTransition(
    unit.tx,
    unit.now,
    entity,
    id,
    from,
    to,
    trigger,
    options.reason ?? null,
    unit.actor,
    attempt,
    unit.requestId ?? null,
    options.metadata ? JSON.stringify(options.metadata) : null,
  );
}

export function moveWorker(unit: Unit, worker: WorkerRow, trigger: WorkerTrigger, options: MoveOptions = {}): Result<WorkerState> {
  const next = nextWorkerState(worker.state, trigger);
  if (!next.ok) return withSubject(next, worker.id);
  const changed = updateWorkerState(unit.tx, worker.id, worker.state, next.value, unit.now, options.set);
  if (changed !== 1) return conflict('worker', worker.id, worker.state, trigger);
  recordTransition(unit, 'worker', worker.id, worker.state, next.value, trigger, worker.attempt || null, options);
  unit.events.push({ kind: 'worker', id: worker.id, from: worker.state, to: next.value, trigger });
  return next;
}

/** As `moveWorker`, answering the worker's row after the move (its guarded UPDATE returns it): the caller reads it no more. */
export function moveWorkerToRow(unit: Unit, worker: WorkerRow, trigger: WorkerTrigger, options: MoveOptions = {}): Result<WorkerRow> {
  const next = nextWorkerState(worker.state, trigger);
  if (!next.ok) return withSubject(next, worker.id);
  const row = updateWorkerStateReturning(unit.tx, worker.id, worker.state, next.value, unit.now, options.set);
  if (!row) return conflict('worker', worker.id, worker.state, trigger);
  recordTransition(unit, 'worker', worker.id, worker.state, next.value, trigger, worker.attempt || null, options);
  unit.events.push({ kind: 'worker', id: worker.id, from: worker.state, to: next.value, trigger });
  return ok(row);
}

/**
 * `foreman claim`'s worker move, IDLE→ASSIGNED onto the task it just took, without reading the
 * worker first: its guarded UPDATE says whether it was IDLE. An IDLE worker holds no attempt (every
 * move into IDLE releases it), so the audit row's attempt is null, as `moveWorker` writes it.
 */
export function assignClaimingWorker(
  unit: Unit,
  workerId: string,
  task: { readonly id: string; readonly branch: string; readonly attempt: number },
  lease: { readonly ownerHost: string | null; readonly holder: string | null },
): boolean {
  const next = nextWorkerState(WorkerState.Idle, 'assign');
  if (!next.ok) throw new Error(`bug: ${next.message}`);
  if (!assignIdleWorker(unit.tx, workerId, unit.now, task, lease.ownerHost, lease.holder)) return false;
  const metadata = { taskId: task.id, attempt: task.attempt };
  recordTransition(unit, 'worker', workerId, WorkerState.Idle, next.value, 'assign', null, { metadata });
  unit.events.push({ kind: 'worker', id: workerId, from: WorkerState.Idle, to: next.value, trigger: 'assign' });
  return true;
}

export function moveTask(unit: Unit, task: TaskRow, trigger: TaskTrigger, options: MoveOptions = {}): Result<TaskStatus> {
  const next = nextTaskStatus(task.status, trigger);
  if (!next.ok) return withSubject(next, task.id);
  const changed = updateTaskStatus(unit.tx, task.id, task.status, task.attempt, next.value, options.set);
  if (changed !== 1) return conflict('task', task.id, task.status, trigger);
  const attempt = typeof options.set?.['attempt'] === 'number' ? options.set['attempt'] : task.attempt;
  recordTransition(unit, 'task', task.id, task.status, next.value, trigger, attempt || null, options);
  unit.events.push({ kind: 'task', id: task.id, from: task.status, to: next.value, trigger });
  return next;
}

function withSubject<T>(result: Result<T>, id: string): Result<T> {
  if (result.ok) return result;
  return { ...result, message: `'${id}': ${result.message}`, details: { ...result.details, id } };
}

function conflict(entity: 'worker' | 'task', id: string, from: string, trigger: string): Result<never> {
  return refused('conflict', `The ${entity} '${id}' changed while ${trigger} was applied (expected ${from}); try again.`, {
    entity,
    id,
    from,
    trigger,
  });
}

/**
 * Fencing (ARCHITECTURE §3): a request that carries another attempt than the one the worker holds is
 * refused. `current` is the worker's attempt: 0 while it holds no task (released with its last one).
 */
export function checkAttempt(current: number, claimed: number | undefined, subject: string, trigger: string): Result<void> {
  if (claimed === undefined || claimed === current) return ok(undefined);
  return refused('staleAttempt', `${trigger} for ${subject} was refused: ${attemptMismatch(current, claimed)}`, {
    claimed,
    current,
    trigger,
  });
}

/** Why an attempt's message no longer counts, in words (issue 29: not "the current attempt is 0"). */
function attemptMismatch(current: number, claimed: number): string {
  if (current === 0) {
    return `it comes from attempt ${claimed} of a task the worker no longer holds (that attempt ended: the task was finished, cancelled, failed or taken back), so it changes nothing.`;
  }
  if (claimed < current) {
    return `it comes from attempt ${claimed}, an earlier run of the task; attempt ${current} runs now, and a late message from an ended attempt cannot move it.`;
  }
  return `it names attempt ${claimed}, but the task has only reached attempt ${current}; pass the attempt the worker holds (foreman status shows it).`;
}
