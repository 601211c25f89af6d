import type { StatusSnapshot, TaskStatusView } from '../../engine/statusView';
import { WorkerState } from '../../core/workerMachine';
import { overlapsOf } from '../../shared/overlapWords';
import { taskStatusWord } from '../../shared/taskWords';

const groupOrder = ['running', 'queued', 'idle', 'failed', 'cancelled', 'done'] as const;

/** The name a status group shows, in task words (the dashboard's Tasks tabs use the same). */
export const groupName = taskStatusWord;

/** The Queue view's rows for one snapshot: chains with their tasks, free tasks by status. */
export interface Grouped {
  readonly parents: TaskStatusView[];
  readonly childrenOf: Map<string, TaskStatusView[]>;
  readonly free: Map<string, TaskStatusView[]>;
  readonly byId: Map<string, TaskStatusView>;
  /** A task's holder's state where the word "running" would hide it (its worker waits for review…). */
  readonly stageOf: Map<string, string>;
  /** The task each worker holds, to find the row a worker's change redraws. */
  readonly taskOfWorker: Map<string, string>;
}

/**
 * What a running task's row says instead of "running", by its worker's state: a task stays
 * `running` until it is merged, but a person looking for work to review looks for these words.
 */
export const stageWords: Readonly<Record<string, string>> = {
  [WorkerState.InReview]: 'in review',
  [WorkerState.Approved]: 'approved',
  [WorkerState.Stale]: 'worker stale',
  [WorkerState.Paused]: 'worker paused',
};

/** Groups a snapshot's tasks as the view shows them (once per snapshot: the view caches it). */
export function groupTasks(snapshot: StatusSnapshot): Grouped {
  const grouped: Grouped = {
    parents: [],
    childrenOf: new Map(),
    free: new Map(),
    byId: new Map(),
    stageOf: new Map(),
    taskOfWorker: new Map(),
  };
  for (const worker of snapshot.workers) {
    if (!worker.taskId) continue;
    grouped.taskOfWorker.set(worker.id, worker.taskId);
    if (worker.state in stageWords) grouped.stageOf.set(worker.taskId, worker.state);
  }
  for (const task of snapshot.tasks) {
    grouped.byId.set(task.id, task);
    if (task.planningPhase !== 'none') grouped.parents.push(task);
    else if (task.parentId) push(grouped.childrenOf, task.parentId, task);
    else push(grouped.free, task.status, task);
  }
  return grouped;
}

/** The view's top rows: the chains row when there are chains, then each status group that has tasks. */
export function rootKeys(grouped: Grouped): string[] {
  const keys = grouped.parents.length ? ['chains'] : [];
  for (const status of groupOrder) if (grouped.free.get(status)?.length) keys.push(`group#${status}`);
  return keys;
}

/** Where a task's row is: under a chain, in the chains row (a chain's parent), or in its status group. */
export function containerOf(task: TaskStatusView, grouped: Grouped): string {
  if (task.planningPhase !== 'none') return 'chains';
  if (task.parentId) return grouped.byId.has(task.parentId) ? `chain#${task.parentId}` : 'orphan';
  return `group#${task.status}`;
}

/** What a task's row shows, as text to compare. */
export function rowText(task: TaskStatusView, grouped: Grouped): string {
  const stage = grouped.stageOf.get(task.id);
  return JSON.stringify([
    task.title,
    task.status,
    stage,
    task.blockedBy,
    task.workerId,
    task.attempt,
    task.maxAttempts,
    task.lastError,
    overlapsOf(task),
  ]);
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
