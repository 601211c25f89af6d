import type { TaskStatusView, WorkerStatus } from '../../engine/statusView';
import { ActionName } from '../../shared/protocol';

/**
 * Which actions the dashboard offers for a worker or a task in a given state: the same choices
 * the tree views' menus make (package.json `when` clauses), kept in one table so the snapshot
 * builder and the host's check of an incoming action agree.
 */
const workerActions: Readonly<Record<string, readonly ActionName[]>> = {
  IDLE: [ActionName.assign],
  ASSIGNED: [ActionName.start, ActionName.showLog, ActionName.cancel],
  WORKING: [ActionName.showChanges, ActionName.showLog, ActionName.openTerminal, ActionName.cancel],
  IN_REVIEW: [ActionName.approve, ActionName.requestChanges, ActionName.showChanges, ActionName.showLog, ActionName.cancel],
  APPROVED: [ActionName.merge, ActionName.showChanges, ActionName.showLog, ActionName.cancel],
  STALE: [ActionName.showLog, ActionName.showChanges, ActionName.openTerminal, ActionName.cancel],
  FAILED: [ActionName.retry, ActionName.reset, ActionName.showLog, ActionName.showChanges],
  COMPLETED: [ActionName.reset],
};

const none: readonly ActionName[] = [];

/**
 * The answers to an agent that waits for a person (the tree's `.waiting` rows offer the same). They
 * come first: the agent's run is blocked until one is given.
 */
export const answerActions: readonly ActionName[] = [ActionName.allow, ActionName.deny];

export function actionsForWorker(worker: Pick<WorkerStatus, 'state' | 'taskId' | 'needsInput'>): readonly ActionName[] {
  const actions = workerActions[worker.state] ?? none;
  // A failed worker whose task was already requeued has nothing to retry.
  const fitting = worker.state === 'FAILED' && !worker.taskId ? actions.filter((action) => action !== ActionName.retry) : actions;
  return worker.needsInput ? [...answerActions, ...fitting] : fitting;
}

/** The "Needs you" item of a waiting agent: answer it, or look at what it is doing first. */
export const inputAttentionActions: readonly ActionName[] = [...answerActions, ActionName.openTerminal, ActionName.showLog];

/** Tasks: assign when it can run now, cancel while not finished, retry after a failure or a cancel. */
export function actionsForTask(
  task: Pick<TaskStatusView, 'status' | 'blockedBy' | 'planningPhase'>,
  isParent: boolean,
): readonly ActionName[] {
  if (isParent || task.planningPhase !== 'none') {
    return task.status === 'failed' || task.status === 'cancelled' ? none : task.status === 'done' ? none : [ActionName.cancelTask];
  }
  switch (task.status) {
    case 'idle':
    case 'queued':
      return task.blockedBy ? [ActionName.cancelTask] : [ActionName.assign, ActionName.cancelTask];
    case 'running':
      return [ActionName.cancelTask];
    case 'failed':
    case 'cancelled':
      return [ActionName.retry];
    default:
      return none;
  }
}

/** Actions that need no worker or task: they open the same prompts as the palette. */
export const folderActions: readonly ActionName[] = [ActionName.addWorker, ActionName.newTask, ActionName.newChain];
