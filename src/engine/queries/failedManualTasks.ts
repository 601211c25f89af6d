import type { Reader } from '../ports';
import type { TaskRow } from '../rows';

/** A manual task whose last attempt failed and that now waits for a person, by the worker that ran it. */
export type FailedManualTaskRow = Pick<TaskRow, 'id' | 'title' | 'status' | 'last_error'> & { readonly last_worker_id: string };

/**
 * Manual tasks (never auto-dispatched) whose last attempt failed and that nobody holds: requeued
 * with attempts left (the queue never hands them out by itself) or failed for good once their
 * worker was reset (a task failed for good keeps its `worker_id`: the caller keeps IDLE workers
 * only, which hold nothing). Only a worker's most recent task counts: a worker that has run another task
 * since is not "next to" this failure any more. Such tasks are few, so the inner check runs rarely.
 */
const failedManualTasksSql = `SELECT t.id, t.title, t.status, t.last_error, t.last_worker_id FROM tasks t
  WHERE t.auto_dispatch = 0 AND t.status IN ('queued', 'failed')
    AND t.last_error IS NOT NULL AND t.last_worker_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM tasks later WHERE later.last_worker_id = t.last_worker_id AND later.started_at > t.started_at)
  ORDER BY t.started_at`;

export function listFailedManualTasks(reader: Reader): FailedManualTaskRow[] {
  return reader.all<FailedManualTaskRow>(failedManualTasksSql);
}
