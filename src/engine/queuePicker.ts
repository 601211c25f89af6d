import type { Reader } from './ports';
import {
  type ClaimNextStatement,
  type ClaimedRow,
  claimNextTask,
  claimTask,
  compileClaimNext,
  nextDueTime,
  peekRunnableTask,
  upsertTaskClaim,
} from './queries';
import type { TaskRow } from './rows';
import { recordTransition } from './transitions';
import type { Unit } from './unit';

export type ClaimedTask = ClaimedRow;

export interface PickerSettings {
  /** How long a claim's lease lasts without a heartbeat renewing it. */
  readonly leaseMs: number;
  /** `{worker}/{task}`-style template for the task branch. */
  readonly branchTemplate: string;
}

export function branchName(template: string, workerId: string, taskId: string): string {
  return template.replaceAll('{worker}', workerId).replaceAll('{task}', taskId);
}

/**
 * The only place that selects work. A claim is one statement, so two claimers can never take the
 * same task: the sub-select and the guarded UPDATE run as one step inside SQLite.
 */
export class QueuePicker {
  /** Compiled once: the branch template is fixed for the engine's lifetime. */
  private readonly claimNextStatement: ClaimNextStatement;

  constructor(private readonly settings: PickerSettings) {
    this.claimNextStatement = compileClaimNext(settings.branchTemplate);
  }

  /** The next runnable task without claiming it (the dispatcher uses it to prefer a previous worker). */
  peek(reader: Reader, now: number): TaskRow | undefined {
    return peekRunnableTask(reader, now);
  }

  /** Claims the next runnable task for a worker in one statement. */
  claimNext(unit: Unit, workerId: string): ClaimedTask | undefined {
    const row = claimNextTask(unit.tx, this.claimNextStatement, unit.now, workerId);
    return row && this.record(unit, row, workerId);
  }

  /** Claims one given task for a worker, if it is still runnable (or idle, for a manual task). */
  claimTask(unit: Unit, task: TaskRow, workerId: string): ClaimedTask | undefined {
    const branch = branchName(this.settings.branchTemplate, workerId, task.id);
    const row = claimTask(unit.tx, task.id, task.status, unit.now, workerId, branch);
    return row && this.record(unit, row, workerId, task.status === 'idle' ? 'run' : 'claim', task.status);
  }

  /** The earliest future `scheduled_for` among queued tasks: the waker sets one timer for it. */
  nextDue(reader: Reader, now: number): number | undefined {
    return nextDueTime(reader, now);
  }

  private record(unit: Unit, row: ClaimedTask, workerId: string, trigger: 'claim' | 'run' = 'claim', from = 'queued'): ClaimedTask {
    recordTransition(unit, 'task', row.id, from, 'running', trigger, row.attempt, { metadata: { workerId } });
    unit.events.push({ kind: 'task', id: row.id, from: from as 'queued', to: 'running', trigger });
    upsertTaskClaim(unit.tx, row.id, workerId, row.attempt, unit.now, unit.now + this.settings.leaseMs);
    return row;
  }
}
