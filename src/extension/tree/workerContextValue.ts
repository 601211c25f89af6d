import { workerFits } from '../../core/actions';
import type { TaskOverlap } from '../../core/overlaps';
import type { WorkerStatus } from '../../engine/statusView';
import { overlapsOf } from '../../shared/overlapWords';

/** A row's overlaps: the engine's status views always carry them; the menus' tests may leave them out. */
type OverlapHolder = { readonly overlaps?: readonly TaskOverlap[] };

/** A task row's `contextValue`: `task.<status>[.blocked][.overlap]`, matched by the Queue view's menus. */
export function taskContextValue(task: { readonly status: string; readonly blockedBy: string | null } & OverlapHolder): string {
  return `task.${task.status}${task.blockedBy ? '.blocked' : ''}${overlapsOf(task).length ? '.overlap' : ''}`;
}

/**
 * A worker row's `contextValue`, which package.json `when` clauses match: `worker.<STATE>`, then
 * `.lastFailed` when its last task was a manual one that failed and waits (Retry reruns it here,
 * see `retryLastTask`), then `.waiting` while its agent waits for a person, then `.overlap` while
 * its task overlaps another running task (issue 33), then `.readonly` in a window that does not own
 * the engine. Markers only ever follow the state, so `/^worker\.WORKING(\.|$)/` matches every
 * variant of a WORKING row, the answer commands match `/^worker\.[A-Z_]+\.waiting(\.|$)/` and the
 * overlap answers `/\.overlap(\.|$)/`. No `vscode` here, so the menus' patterns are tested against
 * it without a window.
 */
export function workerContextValue(
  worker: Pick<WorkerStatus, 'state' | 'needsInput'> & Partial<Pick<WorkerStatus, 'lastTaskFailed'>> & OverlapHolder,
  readOnly: boolean,
): string {
  const lastFailed = worker.lastTaskFailed && workerFits('retryLastTask', worker.state) ? '.lastFailed' : '';
  const overlap = overlapsOf(worker).length ? '.overlap' : '';
  return `worker.${worker.state}${lastFailed}${worker.needsInput ? '.waiting' : ''}${overlap}${readOnly ? '.readonly' : ''}`;
}
