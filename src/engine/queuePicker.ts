import { fillBranchTemplate } from '../core/branchTemplate';
import { type Result, notFound, ok, refused } from '../core/result';
import { WorkerState } from '../core/workerMachine';
import type { Reader } from './ports';
import {
  type ClaimNextStatement,
  type ClaimedRow,
  type ClaimRecord,
  type WorkerClaimStatement,
  claimForWorker,
  claimNextTask,
  claimNextTaskRecorded,
  claimTask,
  claimTaskRecorded,
  compileClaimNext,
  compileWorkerClaim,
  nextDueTime,
  peekRunnableTask,
  upsertTaskClaim,
} from './queries';
import type { TaskRow } from './rows';
import { recordTransition } from './transitions';
import type { Unit } from './unit';

export type ClaimedTask = ClaimedRow;

/** Whose lease the work a worker claims hangs on (StateService `leaseHolderFor`): the holder, for a worker on `host` or on none. */
export interface ClaimLease {
  readonly host: string | undefined;
  readonly holder: string | undefined;
}

export interface PickerSettings {
  /** How long a claim's lease lasts without a heartbeat renewing it. */
  readonly leaseMs: number;
  /** `{worker}/{task}`-style template for the task branch. */
  readonly branchTemplate: string;
  /**
   * The store writes a claim's transition and lease rows in the claim's own statement (PostgreSQL:
   * `Store.dialect`): one round trip instead of three. The rows are the same either way.
   */
  readonly recordInClaim?: boolean;
}

/**
 * The only place that selects work. A claim is one statement, so two claimers can never take the
 * same task: the sub-select and the guarded UPDATE run as one step inside SQLite. On PostgreSQL the
 * claim's transition and lease rows are written by that same statement (`recordInClaim`).
 */
export class QueuePicker {
  /** Compiled once: the branch template is fixed for the engine's lifetime. */
  private readonly claimNextStatement: ClaimNextStatement;
  /** PostgreSQL's whole `foreman claim` in one statement (`recordInClaim`), compiled once. */
  private readonly workerClaimStatement: WorkerClaimStatement | undefined;

  constructor(private readonly settings: PickerSettings) {
    this.claimNextStatement = compileClaimNext(settings.branchTemplate);
    this.workerClaimStatement = settings.recordInClaim ? compileWorkerClaim(settings.branchTemplate) : undefined;
  }

  /**
   * PostgreSQL: `foreman claim` whole: the worker's guarded move IDLE→ASSIGNED with the claim of the
   * next runnable task, in one statement with both transition rows and the lease
   * (queries/workerClaim.ts), answered as StateService's path of several statements answers.
   * Undefined when the store cannot (SQLite: the caller reads the worker and claims as before).
   */
  claimForWorker(unit: Unit, workerId: string, lease: ClaimLease): Result<ClaimedTask | null> | undefined {
    if (!this.workerClaimStatement) return undefined;
    const outcome = claimForWorker(unit.tx, this.workerClaimStatement, {
      workerId,
      now: unit.now,
      actor: unit.actor,
      requestId: unit.requestId ?? null,
      leaseUntil: unit.now + this.settings.leaseMs,
      ownerHost: lease.host,
      leaseHolder: lease.holder,
    });
    if (!outcome) return notFound('worker', workerId);
    if (outcome.state !== WorkerState.Idle) return notIdle(workerId, outcome.state);
    if (!outcome.claimed) return ok(null);
    // A task taken but the worker moved meanwhile: refused, so the write (and the task's claim) rolls back.
    if (!outcome.moved) {
      return refused('conflict', `The worker '${workerId}' changed while assign was applied (expected IDLE); try again.`, {
        entity: 'worker',
        id: workerId,
        from: WorkerState.Idle,
        trigger: 'assign',
      });
    }
    // Their state_change messages are in the statement too.
    unit.events.push(
      { kind: 'task', id: outcome.claimed.id, from: 'queued', to: 'running', trigger: 'claim', published: true },
      { kind: 'worker', id: workerId, from: WorkerState.Idle, to: WorkerState.Assigned, trigger: 'assign', published: true },
    );
    return ok(outcome.claimed);
  }

  /** The next runnable task without claiming it (the dispatcher uses it to prefer a previous worker). */
  peek(reader: Reader, now: number): TaskRow | undefined {
    return peekRunnableTask(reader, now);
  }

  /** Claims the next runnable task for a worker in one statement. */
  claimNext(unit: Unit, workerId: string): ClaimedTask | undefined {
    if (this.settings.recordInClaim) {
      const row = claimNextTaskRecorded(unit.tx, this.claimNextStatement, unit.now, workerId, this.claimRecord(unit, workerId));
      return row && this.announce(unit, row);
    }
    const row = claimNextTask(unit.tx, this.claimNextStatement, unit.now, workerId);
    return row && this.record(unit, row, workerId);
  }

  /** Claims one given task for a worker, if it is still runnable (or idle, for a manual task). */
  claimTask(unit: Unit, task: TaskRow, workerId: string): ClaimedTask | undefined {
    const branch = fillBranchTemplate(this.settings.branchTemplate, workerId, task.id);
    const trigger = task.status === 'idle' ? 'run' : 'claim';
    if (this.settings.recordInClaim) {
      const record = this.claimRecord(unit, workerId);
      const row = claimTaskRecorded(unit.tx, task.id, task.status, trigger, unit.now, workerId, branch, record);
      return row && this.announce(unit, row, trigger, task.status);
    }
    const row = claimTask(unit.tx, task.id, task.status, unit.now, workerId, branch);
    return row && this.record(unit, row, workerId, trigger, task.status);
  }

  /** The earliest future `scheduled_for` among queued tasks: the waker sets one timer for it. */
  nextDue(reader: Reader, now: number): number | undefined {
    return nextDueTime(reader, now);
  }

  private record(unit: Unit, row: ClaimedTask, workerId: string, trigger: 'claim' | 'run' = 'claim', from = 'queued'): ClaimedTask {
    recordTransition(unit, 'task', row.id, from, 'running', trigger, row.attempt, { metadata: { workerId } });
    upsertTaskClaim(unit.tx, row.id, workerId, row.attempt, unit.now, unit.now + this.settings.leaseMs);
    return this.announce(unit, row, trigger, from);
  }

  /** The audit and lease rows a one-statement claim writes: the same as `record`'s. */
  private claimRecord(unit: Unit, workerId: string): ClaimRecord {
    return {
      actor: unit.actor,
      requestId: unit.requestId ?? null,
      metadata: JSON.stringify({ workerId }),
      leaseUntil: unit.now + this.settings.leaseMs,
    };
  }

  private announce(unit: Unit, row: ClaimedTask, trigger: 'claim' | 'run' = 'claim', from = 'queued'): ClaimedTask {
    unit.events.push({ kind: 'task', id: row.id, from: from as 'queued', to: 'running', trigger });
    return row;
  }
}

/** The refusal of a claim by a worker that is not IDLE. */
export function notIdle(workerId: string, state: WorkerState): Result<never> {
  return refused('workerBusy', `Worker '${workerId}' is ${state}, not IDLE; it must finish or be reset before claiming.`, {
    from: state,
    to: WorkerState.Assigned,
  });
}
