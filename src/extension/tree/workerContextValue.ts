import { workerFits } from '../../core/actions';
import type { WorkerStatus } from '../../engine/statusView';

/**
 * A worker row's `contextValue`, which package.json `when` clauses match: `worker.<STATE>`, then
 * `.lastFailed` when its last task was a manual one that failed and waits (Retry reruns it here,
 * see `retryLastTask`), then `.waiting` while its agent waits for a person, then `.readonly` in a
 * window that does not own the engine. Markers only ever follow the state, so
 * `/^worker\.WORKING(\.|$)/` matches every variant of a WORKING row, and the answer commands match
 * `/^worker\.[A-Z_]+\.waiting(\.|$)/`. No `vscode` here, so the menus' patterns are tested against
 * it without a window.
 */
export function workerContextValue(
  worker: Pick<WorkerStatus, 'state' | 'needsInput'> & Partial<Pick<WorkerStatus, 'lastTaskFailed'>>,
  readOnly: boolean,
): string {
  const lastFailed = worker.lastTaskFailed && workerFits('retryLastTask', worker.state) ? '.lastFailed' : '';
  return `worker.${worker.state}${lastFailed}${worker.needsInput ? '.waiting' : ''}${readOnly ? '.readonly' : ''}`;
}
