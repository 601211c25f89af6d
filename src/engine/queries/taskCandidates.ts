import type { Reader } from '../ports';
import type { TaskRow } from '../rows';

/**
 * The first runnable tasks in queue order (due ones included), read without claiming: the
 * dispatcher prefers among them one whose predicted files overlap no running task
 * (docs/overlaps.md). The claim itself stays the picker's guarded statement on the chosen id.
 */
const candidatesSql = `SELECT * FROM tasks
  WHERE status = 'queued' AND blocked_by_task_id IS NULL AND auto_dispatch = 1 AND planning_phase = 'none'
    AND (scheduled_for IS NULL OR scheduled_for <= ?)
  ORDER BY sort_order, created_at LIMIT ?`;

export function listRunnableCandidates(reader: Reader, now: number, limit: number): TaskRow[] {
  return reader.all<TaskRow>(candidatesSql, [now, limit]);
}
