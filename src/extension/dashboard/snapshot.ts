import { workerFits } from '../../core/actions';
import type { LivenessSettings } from '../../core/policies';
import { taskStatuses } from '../../core/taskMachine';
import { workerStates } from '../../core/workerMachine';
import type { StatusSnapshot, TaskStatusView, WorkerStatus } from '../../engine/statusView';
import {
  type ChainView,
  type DashboardSnapshot,
  type FolderView,
  type Stats,
  type TaskItem,
  type TransitionItem,
  type ViewState,
  type WorkerCard,
  pageSizes,
  taskTabOrder,
} from '../../shared/protocol';
import { heartbeatExpected } from '../../shared/livenessWords';
import { overlapsOf } from '../../shared/overlapWords';
import { cardPullRequest } from '../../shared/pullRequestWords';
import type { ActivityData } from './activityFeed';
import type { StateSpan } from './heartbeatHistory';
import { actionsForTask, actionsForWorker } from './actionPolicy';
import { attention } from './attention';
import { ownerCards } from './ownerCards';

/** A folder the dashboard can show. */
export interface FolderInfo {
  readonly root: string;
  readonly name: string;
  readonly ownerNote: string | undefined;
  readonly restricted: boolean;
}

/** Everything known about the folder being shown. */
export interface SelectedFolder {
  readonly info: FolderInfo;
  readonly status: StatusSnapshot;
  /** Heartbeat times of a worker within the window, oldest first. */
  readonly heartbeats: (workerId: string) => readonly number[];
  /** The states a worker entered within the window, oldest first; by default only its current one is known. */
  readonly states?: (workerId: string) => readonly StateSpan[];
  readonly activity: ActivityData | undefined;
  readonly liveness: LivenessSettings;
  readonly heartbeatWindowMs: number;
  /** The card a commit did not touch, kept from the last build (`CardCache`); by default every card is built. */
  readonly card?: (worker: WorkerStatus, build: () => WorkerCard) => WorkerCard;
}

export interface SnapshotInput {
  readonly now: number;
  readonly folders: readonly FolderInfo[];
  /** The webview's view state; `view.folder` should name `selected`'s root (normalised here). */
  readonly view: ViewState;
  readonly selected: SelectedFolder | undefined;
}

const chainOrder: Record<string, number> = { running: 0, queued: 1, idle: 2, failed: 3, cancelled: 4, done: 5 };

/**
 * Builds the dashboard's full snapshot: a pure function of the engine's status, the heartbeat
 * history, the activity read and the view state. Long lists are cut to the page being viewed, so
 * the message stays small however large the crew is. Strings are passed through untouched: the
 * webview renders them as text.
 */
export function buildDashboardSnapshot(input: SnapshotInput): DashboardSnapshot {
  const folders = input.folders.map((folder) => ({
    root: folder.root,
    name: folder.name,
    ownerNote: folder.ownerNote ?? null,
    restricted: folder.restricted,
  }));
  if (!input.selected) return { generatedAt: input.now, folders, view: { ...input.view, folder: null }, folder: null };
  const folder = buildFolder(input.selected, input.view, input.now);
  const view: ViewState = {
    ...input.view,
    folder: input.selected.info.root,
    workersPage: folder.workers.page,
    chainsPage: folder.chains.page,
    taskPage: folder.tasks.page,
  };
  return { generatedAt: input.now, folders, view, folder };
}

function buildFolder(selected: SelectedFolder, view: ViewState, now: number): FolderView {
  const { status, info } = selected;
  const taskById = new Map<string, TaskStatusView>();
  const childrenOf = new Map<string, TaskStatusView[]>();
  for (const task of status.tasks) {
    taskById.set(task.id, task);
    if (task.parentId) {
      let children = childrenOf.get(task.parentId);
      if (!children) childrenOf.set(task.parentId, (children = []));
      children.push(task);
    }
  }
  const isParent = (task: TaskStatusView) => childrenOf.has(task.id) || task.planningPhase !== 'none';
  const workerCounts: Record<string, number> = Object.fromEntries(workerStates.map((s) => [s, 0]));
  for (const worker of status.workers) workerCounts[worker.state] = (workerCounts[worker.state] ?? 0) + 1;

  const statesOf = (worker: WorkerStatus): readonly StateSpan[] => {
    const known = selected.states?.(worker.id) ?? [];
    return known.length ? known : [{ at: worker.stateChangedAt, expected: heartbeatExpected(worker.state) }];
  };
  const workersPage = clampPage(view.workersPage, status.workers.length, pageSizes.workers);
  const workerItems = status.workers.slice(workersPage * pageSizes.workers, (workersPage + 1) * pageSizes.workers).map((worker) => {
    const build = () =>
      workerCard(worker, worker.taskId ? taskById.get(worker.taskId) : undefined, selected.heartbeats(worker.id), statesOf(worker), now);
    return selected.card ? selected.card(worker, build) : build();
  });

  const parents = status.tasks.filter((task) => !task.parentId && isParent(task));
  parents.sort((a, b) => (chainOrder[a.status] ?? 9) - (chainOrder[b.status] ?? 9));
  const chainsPage = clampPage(view.chainsPage, parents.length, pageSizes.chains);
  const chainItems = parents
    .slice(chainsPage * pageSizes.chains, (chainsPage + 1) * pageSizes.chains)
    .map((parent) => chainView(parent, childrenOf.get(parent.id) ?? [], isParent));

  const free: TaskStatusView[] = [];
  const freeCounts: Record<string, number> = Object.fromEntries(taskStatuses.map((s) => [s, 0]));
  /** Work items only: a chain's parent is a container, not one more running task. */
  const workCounts: Record<string, number> = Object.fromEntries(taskStatuses.map((s) => [s, 0]));
  for (const task of status.tasks) {
    if (isParent(task)) continue;
    workCounts[task.status] = (workCounts[task.status] ?? 0) + 1;
    if (task.parentId) continue;
    freeCounts[task.status] = (freeCounts[task.status] ?? 0) + 1;
  }
  // Until the person picks a tab, the panel opens on the first one with something in it.
  const taskStatus = view.taskStatus ?? taskTabOrder.find((status) => (freeCounts[status] ?? 0) > 0) ?? taskTabOrder[0];
  for (const task of status.tasks) if (task.status === taskStatus && !task.parentId && !isParent(task)) free.push(task);
  const taskPage = clampPage(view.taskPage, free.length, pageSizes.tasks);

  return {
    root: info.root,
    name: info.name,
    baseBranch: status.baseBranch,
    ownerNote: info.ownerNote ?? null,
    restricted: info.restricted,
    liveness: { warnMs: selected.liveness.warnMs, staleMs: selected.liveness.staleMs, deadMs: selected.liveness.deadMs },
    heartbeatWindowMs: selected.heartbeatWindowMs,
    workerCounts,
    owners: ownerCards(status),
    attention: attention(status, taskById, isParent),
    workers: { total: status.workers.length, page: workersPage, pageSize: pageSizes.workers, items: workerItems },
    chains: { total: parents.length, page: chainsPage, pageSize: pageSizes.chains, items: chainItems },
    tasks: {
      status: taskStatus,
      counts: freeCounts,
      total: free.length,
      page: taskPage,
      pageSize: pageSizes.tasks,
      items: free.slice(taskPage * pageSizes.tasks, (taskPage + 1) * pageSizes.tasks).map((task) => taskItem(task, false)),
    },
    activity: activity(selected.activity, view.activity, status),
    stats: { ...stats(workCounts, workerCounts, selected.activity), running: agentsRunning(status, isParent), usage: status.usage },
  };
}

function clampPage(page: number, total: number, size: number): number {
  return Math.max(0, Math.min(page, Math.ceil(total / size) - 1));
}

function workerCard(
  worker: WorkerStatus,
  task: TaskStatusView | undefined,
  beats: readonly number[],
  states: readonly StateSpan[],
  now: number,
): WorkerCard {
  return {
    id: worker.id,
    state: worker.state,
    agent: worker.agent,
    host: worker.host,
    ...(worker.hostOwner ? { hostOwner: worker.hostOwner } : {}),
    taskId: worker.taskId,
    taskTitle: task?.title ?? null,
    branch: worker.branch,
    attempt: worker.attempt,
    maxAttempts: task?.maxAttempts ?? null,
    lastHeartbeatMs: worker.lastHeartbeatMs,
    progress: worker.progress,
    liveness: worker.liveness,
    livenessReason: worker.livenessReason,
    stateChangedAt: worker.stateChangedAt,
    lastError: worker.lastError,
    note: worker.note,
    summary: worker.summary,
    activity: worker.activity,
    needsInput: worker.needsInput,
    usage: worker.usage,
    confinement: worker.confinement,
    ...cardPullRequest(task?.pullRequest),
    heartbeatsAt: beats.filter((at) => at <= now),
    states: states.slice(-200).map((span) => ({ at: Math.min(span.at, now), expected: span.expected })),
    actions: [...actionsForWorker(worker, task?.pullRequest?.state === 'open')],
    // Only a worker holding a task can overlap; the engine reports at most 50 (the schema's bound).
    overlaps: worker.taskId ? overlapsOf(worker).slice(0, 50) : [],
  };
}

function taskItem(task: TaskStatusView, isParent: boolean): TaskItem {
  return {
    id: task.id,
    title: task.title,
    status: task.status,
    blockedBy: task.blockedBy,
    workerId: task.workerId,
    attempt: task.attempt,
    maxAttempts: task.maxAttempts,
    scheduledFor: task.scheduledFor,
    lastError: task.lastError,
    manual: task.manual,
    usage: task.usage,
    actions: [...actionsForTask(task, isParent)],
  };
}

function chainView(parent: TaskStatusView, children: readonly TaskStatusView[], isParent: (task: TaskStatusView) => boolean): ChainView {
  const ids = new Set(children.map((child) => child.id));
  const edges: ChainView['edges'] = [];
  let done = 0;
  for (const child of children) {
    if (child.status === 'done') done++;
    if (child.blockedBy && ids.has(child.blockedBy)) edges.push({ from: child.blockedBy, to: child.id });
  }
  return {
    parent: taskItem(parent, true),
    planningPhase: parent.planningPhase as ChainView['planningPhase'],
    done,
    nodes: children.map((child) => taskItem(child, isParent(child))),
    edges,
  };
}

function activity(data: ActivityData | undefined, filter: ViewState['activity'], status: StatusSnapshot): FolderView['activity'] {
  const matches = (item: TransitionItem) =>
    (filter.worker === null || (item.entity === 'worker' && item.id === filter.worker)) &&
    (filter.task === null || (item.entity === 'task' && item.id === filter.task)) &&
    (filter.state === null || item.to === filter.state || item.from === filter.state);
  const items: TransitionItem[] = [];
  let matching = 0;
  const transitions = data?.transitions ?? [];
  for (const item of [...transitions].reverse()) {
    if (!matches(item)) continue;
    matching++;
    if (items.length < filter.limit) items.push(item);
  }
  return {
    loaded: data !== undefined,
    matching,
    items,
    workers: status.workers.map((worker) => worker.id),
    states: [...workerStates, ...taskStatuses],
  };
}

/**
 * Running tasks that are being worked on: a task stays `running` through its review, but the
 * statistics count it under "in review", not twice; a running chain is a container, not work.
 */
function agentsRunning(status: StatusSnapshot, isParent: (task: TaskStatusView) => boolean): number {
  const reviewed = new Set(status.workers.filter((worker) => workerFits('awaitsDecision', worker.state)).map((worker) => worker.taskId));
  return status.tasks.filter((task) => task.status === 'running' && !reviewed.has(task.id) && !isParent(task)).length;
}

function stats(
  workCounts: Record<string, number>,
  workerCounts: Record<string, number>,
  data: ActivityData | undefined,
): Omit<Stats, 'usage'> {
  const metrics = data?.metrics;
  return {
    queued: workCounts['queued'] ?? 0,
    running: workCounts['running'] ?? 0,
    inReview: workerCounts['IN_REVIEW'] ?? 0,
    done: workCounts['done'] ?? 0,
    failed: workCounts['failed'] ?? 0,
    cancelled: workCounts['cancelled'] ?? 0,
    idle: workCounts['idle'] ?? 0,
    throughputPerHour: metrics ? metrics.throughputPerHour : null,
    timeInState: metrics ? metrics.timeInState.slice(0, 200) : [],
    rejected: metrics ? metrics.rejected.total : null,
    transitions: metrics ? metrics.transitions.reduce((sum, row) => sum + row.count, 0) : null,
  };
}
