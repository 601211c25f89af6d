import type { WorkerStatus } from '../../engine/statusView';

/**
 * A worker row's `contextValue`, which package.json `when` clauses match: `worker.<STATE>`, then
 * `.waiting` while its agent waits for a person, then `.readonly` in a window that does not own the
 * engine. Markers only ever follow the state, so `/^worker\.WORKING(\.|$)/` matches every variant
 * of a WORKING row, and the answer commands match `/^worker\.[A-Z_]+\.waiting(\.|$)/`. No `vscode`
 * here, so the menus' patterns are tested against it without a window.
 */
export function workerContextValue(worker: Pick<WorkerStatus, 'state' | 'needsInput'>, readOnly: boolean): string {
  return `worker.${worker.state}${worker.needsInput ? '.waiting' : ''}${readOnly ? '.readonly' : ''}`;
}
