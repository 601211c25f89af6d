import type { TaskStatus } from '../../core/taskMachine';
import type { Reader, Tx } from '../ports';
import type { TaskRow } from '../rows';
import { type ColumnValues, withSetClause } from './setClause';

/** The `tasks` table: rows, order and chains. Claims are in taskQueue.ts, views in taskViews.ts. */

export function findTask(reader: Reader, id: string): TaskRow | undefined {
  return reader.get<TaskRow>('SELECT * FROM tasks WHERE id = ?', [id]);
}

/** The `sort_order` that puts a new task at the end of the queue. */
export function nextSortOrder(reader: Reader): number {
  return reader.get<{ next: number }>('SELECT COALESCE(MAX(sort_order), 0) + 1 AS next FROM tasks')?.next ?? 1;
}

export interface TaskInsert {
  readonly id: string;
  readonly title: string;
  readonly prompt: string;
  readonly parentId: string | null;
  readonly autoDispatch: boolean;
  /** Its agent plans first and waits for approval before it changes anything. */
  readonly planFirst?: boolean;
  readonly maxAttempts: number;
  readonly sortOrder: number;
  readonly createdAt: number;
}

/** A new Idle task. */
export function insertTask(tx: Tx, task: TaskInsert): void {
  tx.run(
    `INSERT INTO tasks (id, title, prompt, status, parent_task_id, auto_dispatch, plan_first, max_attempts, sort_order, created_at)
     VALUES (?, ?, ?, 'idle', ?, ?, ?, ?, ?, ?)`,
    [task.id, task.title, task.prompt, task.parentId, task.autoDispatch ? 1 : 0, task.planFirst ? 1 : 0, task.maxAttempts, task.sortOrder, task.createdAt],
  );
}

/**
 * Moves a task from `from` to `to` (plus the columns of `set`) only if it is still in `from` at
 * `attempt`, so a late write of an older attempt changes nothing. Returns the rows changed (1 or 0).
 */
export function updateTaskStatus(tx: Tx, id: string, from: TaskStatus, attempt: number, to: TaskStatus, set?: ColumnValues): number {
  const extra = withSetClause('UPDATE tasks SET status = ?, version = version + 1{set} WHERE id = ? AND status = ? AND attempt = ?', set);
  return tx.run(extra.sql, [to, ...extra.params, id, from, attempt]);
}

/** The task becomes a chain parent that collects children. */
export function markPlanningActive(tx: Tx, id: string): void {
  tx.run(`UPDATE tasks SET planning_phase = 'active', version = version + 1 WHERE id = ?`, [id]);
}

/** The chain's children are fixed. */
export function markPlanningFinalized(tx: Tx, id: string): void {
  tx.run(`UPDATE tasks SET planning_phase = 'finalized', version = version + 1 WHERE id = ?`, [id]);
}

/** Blocks a task on a predecessor: it is not runnable until that one is done. */
export function blockTask(tx: Tx, id: string, predecessorId: string): void {
  tx.run('UPDATE tasks SET blocked_by_task_id = ?, version = version + 1 WHERE id = ?', [predecessorId, id]);
}

export function unblockTask(tx: Tx, id: string): void {
  tx.run('UPDATE tasks SET blocked_by_task_id = NULL, version = version + 1 WHERE id = ?', [id]);
}

/** The tasks blocked on `predecessorId`. */
export function listSuccessorIds(reader: Reader, predecessorId: string): string[] {
  return reader.all<{ id: string }>('SELECT id FROM tasks WHERE blocked_by_task_id = ?', [predecessorId]).map((row) => row.id);
}

export function countChildren(reader: Reader, parentId: string): number {
  return reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM tasks WHERE parent_task_id = ?', [parentId])?.n ?? 0;
}

/** A chain's tasks in queue order. */
export function listChildren(reader: Reader, parentId: string): TaskRow[] {
  return reader.all<TaskRow>('SELECT * FROM tasks WHERE parent_task_id = ? ORDER BY sort_order, created_at', [parentId]);
}
