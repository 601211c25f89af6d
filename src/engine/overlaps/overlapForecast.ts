import type { Reader, Tx } from '../ports';
import { expectedFilesTouched, hasTaskPaths, insertTaskPath } from '../queries';
import type { TaskRow } from '../rows';

/**
 * Which files a task that has not started is expected to touch (docs/overlaps.md): its `paths`
 * hint from `task add`, or what the finished steps of its chain touched (kept under the chain's
 * parent when a step is Done, overlapTracker.ts). Both are rows of `task_paths`, so they outlive
 * an owner restart and are seen by every owner of a shared store. The dispatcher prefers a task
 * whose expected files no running task touched.
 */
export class OverlapForecast {
  /** Recorded in the transaction that adds the task. */
  hint(tx: Tx, taskId: string, paths: readonly string[]): void {
    for (const path of paths) insertTaskPath(tx, taskId, path.replace(/\\/g, '/').replace(/^\.\//, ''));
  }

  /** Whether the task's expected files overlap a running task's; false when nothing is expected. */
  collides(reader: Reader, task: TaskRow): boolean {
    return expectedFilesTouched(reader, task.id, task.parent_task_id);
  }

  /** Whether nothing is expected of any task: the dispatcher then keeps to queue order at the cost of one read. */
  isEmpty(reader: Reader): boolean {
    return !hasTaskPaths(reader);
  }
}
