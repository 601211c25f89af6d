import type { Reader } from './ports';
import type { TaskRow } from './rows';
import { recordTransition } from './transitions';
import type { Unit } from './unit';

/** Runnable = queued, not blocked, not a chain parent, auto-dispatched, and due (ARCHITECTURE §4). */
const runnable = `status = 'queued' AND blocked_by_task_id IS NULL AND auto_dispatch = 1
  AND planning_phase = 'none' AND (scheduled_for IS NULL OR scheduled_for <= ?)`;

/** The columns a claim sets; `branch` is an SQL expression (a parameter, or built from the task id). */
const claimColumns = (branch: string) => `status = 'running', attempt = attempt + 1, started_at = ?, finished_at = NULL,
  worker_id = ?, last_worker_id = ?, previous_branch = branch, branch = ${branch}, version = version + 1`;

export interface ClaimedTask {
  readonly id: string;
  readonly attempt: number;
  readonly branch: string;
}

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
  constructor(private readonly settings: PickerSettings) {}

  /** The next runnable task without claiming it (the dispatcher uses it to prefer a previous worker). */
  peek(reader: Reader, now: number): TaskRow | undefined {
    return reader.get<TaskRow>(`SELECT * FROM tasks WHERE ${runnable} ORDER BY sort_order, created_at LIMIT 1`, [now]);
  }

  /** Claims the next runnable task for a worker in one statement. */
  claimNext(unit: Unit, workerId: string): ClaimedTask | undefined {
    const branchSql = this.branchSql();
    const [row] = unit.tx.returning<{ id: string; attempt: number; branch: string }>(
      `UPDATE tasks SET ${claimColumns(branchSql)}
       WHERE id = (SELECT id FROM tasks WHERE ${runnable} ORDER BY sort_order, created_at LIMIT 1) AND status = 'queued'
       RETURNING id, attempt, branch`,
      [unit.now, workerId, workerId, ...this.branchParams(workerId), unit.now],
    );
    return row && this.record(unit, row, workerId);
  }

  /** Claims one given task for a worker, if it is still runnable (or idle, for a manual task). */
  claimTask(unit: Unit, task: TaskRow, workerId: string): ClaimedTask | undefined {
    const branch = branchName(this.settings.branchTemplate, workerId, task.id);
    const [row] = unit.tx.returning<{ id: string; attempt: number; branch: string }>(
      `UPDATE tasks SET ${claimColumns('?')}
       WHERE id = ? AND status = ? AND blocked_by_task_id IS NULL AND planning_phase = 'none'
       RETURNING id, attempt, branch`,
      [unit.now, workerId, workerId, branch, task.id, task.status],
    );
    return row && this.record(unit, row, workerId, task.status === 'idle' ? 'run' : 'claim', task.status);
  }

  /** The earliest future `scheduled_for` among queued tasks: the waker sets one timer for it. */
  nextDue(reader: Reader, now: number): number | undefined {
    const row = reader.get<{ due: number | null }>(
      `SELECT MIN(scheduled_for) AS due FROM tasks WHERE status = 'queued' AND scheduled_for > ?`,
      [now],
    );
    return row?.due ?? undefined;
  }

  private record(unit: Unit, row: ClaimedTask, workerId: string, trigger: 'claim' | 'run' = 'claim', from = 'queued'): ClaimedTask {
    recordTransition(unit, 'task', row.id, from, 'running', trigger, row.attempt, { metadata: { workerId } });
    unit.events.push({ kind: 'task', id: row.id, from: from as 'queued', to: 'running', trigger });
    unit.tx.run(
      `INSERT INTO task_claims (task_id, claimed_by, attempt, claimed_at_ms, lease_until_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(task_id) DO UPDATE SET claimed_by = excluded.claimed_by, attempt = excluded.attempt,
         claimed_at_ms = excluded.claimed_at_ms, lease_until_ms = excluded.lease_until_ms`,
      [row.id, workerId, row.attempt, unit.now, unit.now + this.settings.leaseMs],
    );
    return row;
  }

  /** The branch is computed inside the claim statement because the task id is only known there. */
  private branchSql(): string {
    const parts = this.settings.branchTemplate.split(/(\{worker\}|\{task\})/).filter((part) => part !== '');
    return parts.map((part) => (part === '{task}' ? 'id' : '?')).join(' || ') || "''";
  }

  private branchParams(workerId: string): string[] {
    return this.settings.branchTemplate
      .split(/(\{worker\}|\{task\})/)
      .filter((part) => part !== '' && part !== '{task}')
      .map((part) => (part === '{worker}' ? workerId : part));
  }
}
