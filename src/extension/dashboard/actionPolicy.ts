import type { TaskStatusView, WorkerStatus } from '../../engine/statusView';
import { type WorkerRule, taskFits, workerFits } from '../../core/actions';
import { workerStates } from '../../core/workerMachine';
import { ActionName } from '../../shared/protocol';

/**
 * Which actions the dashboard offers for a worker: each button with the rule of
 * `src/core/actions.ts` that says when it fits, so the dashboard, the tree menus and the pick
 * lists follow the same transition table. In the order the buttons show.
 */
const workerButtons: ReadonlyArray<readonly [ActionName, WorkerRule]> = [
  [ActionName.assign, 'assign'],
  [ActionName.start, 'start'],
  [ActionName.approve, 'approve'],
  [ActionName.requestChanges, 'requestChanges'],
  [ActionName.merge, 'merge'],
  [ActionName.retry, 'retry'],
  [ActionName.reset, 'reset'],
  [ActionName.showChanges, 'hasWork'],
  [ActionName.showLog, 'holdsTask'],
  [ActionName.openTerminal, 'agentMayRun'],
  [ActionName.sendMessage, 'talk'],
  [ActionName.interrupt, 'talk'],
  [ActionName.cancel, 'cancel'],
];

const workerActions: ReadonlyMap<string, readonly ActionName[]> = new Map(
  workerStates.map((state) => [state, workerButtons.filter(([, rule]) => workerFits(rule, state)).map(([action]) => action)]),
);

const none: readonly ActionName[] = [];

/**
 * The answers to an agent that waits for a person (the tree's `.waiting` rows offer the same). They
 * come first: the agent's run is blocked until one is given.
 */
export const answerActions: readonly ActionName[] = [ActionName.allow, ActionName.deny];

export function actionsForWorker(
  worker: Pick<WorkerStatus, 'state' | 'taskId' | 'needsInput'> & Partial<Pick<WorkerStatus, 'lastTaskFailed'>>,
  /** Its task's pull request is open: the forge merges it (docs/handoff.md), so Merge is not offered. */
  pullRequestOpen = false,
): readonly ActionName[] {
  const actions = workerActions.get(worker.state) ?? none;
  // A failed worker whose task was already requeued has nothing to retry.
  const unneeded = (action: ActionName) =>
    (action === ActionName.retry && worker.state === 'FAILED' && !worker.taskId) || (action === ActionName.merge && pullRequestOpen);
  const fitting = actions.some(unneeded) ? actions.filter((action) => !unneeded(action)) : actions;
  // A free worker next to its failed manual task: Retry, first, reruns that task on it.
  const rerun = worker.lastTaskFailed && workerFits('retryLastTask', worker.state) && !fitting.includes(ActionName.retry);
  const offered = rerun ? [ActionName.retry, ...fitting] : fitting;
  return worker.needsInput ? [...answerActions, ...offered] : offered;
}

/** The "Needs you" item of a waiting agent: answer it, or look at what it is doing first. */
export const inputAttentionActions: readonly ActionName[] = [...answerActions, ActionName.openTerminal, ActionName.showLog];

/** Tasks: assign when it can run now, cancel while the machine lets it, retry after a failure or a cancel. */
export function actionsForTask(
  task: Pick<TaskStatusView, 'status' | 'blockedBy' | 'planningPhase'>,
  isParent: boolean,
): readonly ActionName[] {
  // A chain parent or a task being planned moves with its children: it can only be cancelled.
  if (isParent || task.planningPhase !== 'none') return taskFits('cancel', task.status) ? [ActionName.cancelTask] : none;
  const actions: ActionName[] = [];
  // A blocked task waits for its predecessor: it cannot be handed out by hand.
  if (taskFits('assign', task.status) && !task.blockedBy) actions.push(ActionName.assign);
  if (taskFits('cancel', task.status)) actions.push(ActionName.cancelTask);
  if (taskFits('retry', task.status)) actions.push(ActionName.retry);
  return actions;
}

/** Actions that need no worker or task: they open the same prompts as the palette. */
export const folderActions: readonly ActionName[] = [ActionName.addWorker, ActionName.newTask, ActionName.newChain];
