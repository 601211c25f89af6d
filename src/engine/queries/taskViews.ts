import { terminalTaskStatuses } from '../../core/taskMachine';
import type { Reader, SqlValue } from '../ports';
import type { TaskRow } from '../rows';

/** Reads of `tasks` for status views and metrics: filtered pages and counts. */

/** Only the columns the views show: prompts and results can be long, and views read on every change. */
const viewColumns = `id, title, status, blocked_by_task_id, worker_id, attempt, max_attempts, parent_task_id, planning_phase,
  scheduled_for, last_error, auto_dispatch, pr_number, pr_url, pr_state, pr_checks`;

/** The columns `viewColumns` holds: the rest of a TaskRow is absent from what `listTaskViews` returns. */
export type TaskViewRow = Pick<
  TaskRow,
  | 'id'
  | 'title'
  | 'status'
  | 'blocked_by_task_id'
  | 'worker_id'
  | 'attempt'
  | 'max_attempts'
  | 'parent_task_id'
  | 'planning_phase'
  | 'scheduled_for'
  | 'last_error'
  | 'auto_dispatch'
  | 'pr_number'
  | 'pr_url'
  | 'pr_state'
  | 'pr_checks'
>;

/** Which tasks a view asks for; every field given narrows the set. */
export interface TaskFilter {
  readonly statuses?: readonly string[];
  /** Held now or last by this worker. */
  readonly worker?: string;
  /** Created, started or finished at or after this time. */
  readonly since?: number;
  /** Only the finished tasks (done, failed, cancelled), or (`false`) only the others. */
  readonly finished?: boolean;
  /** Only these tasks (a view's model re-reads the rows a commit touched); at most `maxIdsPerRead`. */
  readonly ids?: readonly string[];
}

/** Ids in one `IN (…)` list: well under SQLite's bound-parameter limit. */
export const maxIdsPerRead = 500;

export type TaskViewOrder = 'queue' | 'recentlyFinished';

const orderBy: Readonly<Record<TaskViewOrder, string>> = {
  queue: 'sort_order, created_at',
  recentlyFinished: 'finished_at DESC, sort_order',
};

function whereOf(filter: TaskFilter): { sql: string; params: SqlValue[] } {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  if (filter.statuses) {
    conditions.push(`status IN (${filter.statuses.map(() => '?').join(', ')})`);
    params.push(...filter.statuses);
  }
  if (filter.worker !== undefined) {
    conditions.push('(worker_id = ? OR last_worker_id = ?)');
    params.push(filter.worker, filter.worker);
  }
  if (filter.since !== undefined) {
    conditions.push('(created_at >= ? OR started_at >= ? OR finished_at >= ?)');
    params.push(filter.since, filter.since, filter.since);
  }
  if (filter.finished !== undefined) {
    conditions.push(`status ${filter.finished ? 'IN' : 'NOT IN'} (${terminalTaskStatuses.map(() => '?').join(', ')})`);
    params.push(...terminalTaskStatuses);
  }
  if (filter.ids !== undefined) {
    conditions.push(`id IN (${filter.ids.map(() => '?').join(', ') || 'NULL'})`);
    params.push(...filter.ids);
  }
  return { sql: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/** The tasks a filter matches, in `order`, at most `limit` of them. */
export function listTaskViews(reader: Reader, filter: TaskFilter, order: TaskViewOrder, limit?: number): TaskViewRow[] {
  const where = whereOf(filter);
  return reader.all<TaskViewRow>(
    `SELECT ${viewColumns} FROM tasks ${where.sql} ORDER BY ${orderBy[order]}${limit === undefined ? '' : ` LIMIT ${limit}`}`,
    where.params,
  );
}

/** Where a page in queue order ended: `sort_order` never changes once a task is added. */
export interface QueueKey {
  readonly sortOrder: number;
  readonly createdAt: number;
  readonly id: string;
}

/**
 * The next `limit` tasks a filter matches in queue order after `after` (from the start without
 * it), with their keys: `status --all` reads its tasks in such pages between other requests.
 */
export function listTaskViewPage(
  reader: Reader,
  filter: TaskFilter,
  after: QueueKey | undefined,
  limit: number,
): Array<TaskViewRow & { sort_order: number; created_at: number }> {
  const where = whereOf(filter);
  const conditions = where.sql ? [where.sql.slice('WHERE '.length)] : [];
  const params = [...where.params];
  if (after) {
    conditions.push('sort_order >= ? AND (sort_order > ? OR created_at > ? OR (created_at = ? AND id > ?))');
    params.push(after.sortOrder, after.sortOrder, after.createdAt, after.createdAt, after.id);
  }
  return reader.all(
    `SELECT ${viewColumns}, sort_order, created_at FROM tasks ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}
     ORDER BY sort_order, created_at, id LIMIT ${limit}`,
    params,
  );
}

/** How many tasks a filter matches. */
export function countTasks(reader: Reader, filter: TaskFilter): number {
  const where = whereOf(filter);
  return reader.get<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks ${where.sql}`, where.params)?.n ?? 0;
}

/** Every task by status. */
export function countTasksByStatus(reader: Reader): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of reader.all<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status')) {
    counts[row.status] = row.n;
  }
  return counts;
}

/** Tasks done at or after `since`. */
export function countDoneSince(reader: Reader, since: number): number {
  return reader.get<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks WHERE status = 'done' AND finished_at >= ?`, [since])?.n ?? 0;
}
