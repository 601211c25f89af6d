import * as vscode from 'vscode';
import type { StatusSnapshot, TaskStatusView } from '../../engine/statusView';
import { WorkerState } from '../../core/workerMachine';
import { stageIcon, taskIcon } from '../presentation';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';
import type { StatusDelta, ViewsChange } from '../statusModel';

/** Long groups show this many tasks and a row saying how many more there are. */
const pageSize = 200;
const groupOrder = ['running', 'queued', 'idle', 'failed', 'cancelled', 'done'] as const;

export type QueueNode =
  | { readonly kind: 'folder'; readonly session: ForemanSession }
  | { readonly kind: 'chains'; readonly session: ForemanSession }
  | { readonly kind: 'chain'; readonly session: ForemanSession; parent: TaskStatusView }
  | { readonly kind: 'group'; readonly session: ForemanSession; readonly status: string }
  | { readonly kind: 'task'; readonly session: ForemanSession; task: TaskStatusView; position?: number }
  | { readonly kind: 'more'; readonly count: number };

interface Grouped {
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
const stageWords: Readonly<Record<string, string>> = {
  [WorkerState.InReview]: 'in review',
  [WorkerState.Approved]: 'approved',
  [WorkerState.Stale]: 'worker stale',
  [WorkerState.Paused]: 'worker paused',
};

/**
 * The Queue & Chains view: chains as parents with their tasks in order (blocked-by shown), and
 * free tasks grouped by status. Grouping is computed once per snapshot, not per expand.
 *
 * Redraws follow what changed (VS Code closes a context menu open on a view it redraws): a task
 * whose text changed redraws its row; one that moved (a status change moves it to another group)
 * redraws the groups it left and joined; the whole view redraws only when its top rows change.
 * Nodes are kept per key (folder, group, chain, task) so `fire(node)` finds the row VS Code holds,
 * and children are looked up in the current grouping, never kept in a node.
 */
export class QueueTreeProvider implements vscode.TreeDataProvider<QueueNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<QueueNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly subscription: vscode.Disposable;
  private readonly cache = new WeakMap<StatusSnapshot, Grouped>();
  /** The grouping each folder's rows were last given from, to tell where a changed task was. */
  private readonly shown = new Map<string, Grouped>();
  private readonly nodes = new Map<string, QueueNode>();

  constructor(private readonly registry: SessionRegistry) {
    this.subscription = registry.onDidChange((change) => this.changed(change));
  }

  getTreeItem(node: QueueNode): vscode.TreeItem {
    const collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    switch (node.kind) {
      case 'folder':
        return Object.assign(new vscode.TreeItem(node.session.name, vscode.TreeItemCollapsibleState.Expanded), {
          iconPath: new vscode.ThemeIcon('root-folder'),
        });
      case 'chains':
        return Object.assign(
          new vscode.TreeItem(`Chains (${this.grouped(node.session).parents.length})`, vscode.TreeItemCollapsibleState.Expanded),
          { id: `${node.session.root}#chains`, iconPath: new vscode.ThemeIcon('list-ordered') },
        );
      case 'chain': {
        const children = this.grouped(node.session).childrenOf.get(node.parent.id) ?? [];
        const done = children.filter((c) => c.status === 'done').length;
        const item = new vscode.TreeItem(node.parent.title, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `${node.session.root}#chain#${node.parent.id}`;
        item.description = `${node.parent.status} · ${done}/${children.length} done`;
        item.iconPath = taskIcon(node.parent);
        item.contextValue = `chain.${node.parent.status}`;
        return item;
      }
      case 'group': {
        const count = this.grouped(node.session).free.get(node.status)?.length ?? 0;
        const item = new vscode.TreeItem(
          `${capitalize(node.status)} (${count})`,
          node.status === 'done' || node.status === 'cancelled' ? collapsed : vscode.TreeItemCollapsibleState.Expanded,
        );
        item.id = `${node.session.root}#group#${node.status}`;
        return item;
      }
      case 'task':
        return taskItem(node, this.grouped(node.session).stageOf.get(node.task.id));
      case 'more':
        return Object.assign(new vscode.TreeItem(`… and ${node.count.toLocaleString('en')} more`), {
          iconPath: new vscode.ThemeIcon('ellipsis'),
        });
    }
  }

  getChildren(node?: QueueNode): QueueNode[] {
    if (!node) {
      const sessions = this.registry.sessions();
      const [only] = sessions;
      return only && sessions.length === 1
        ? this.rootOf(only)
        : sessions.map((session) => this.node(`${session.root}#folder`, () => ({ kind: 'folder', session })));
    }
    switch (node.kind) {
      case 'folder':
        return this.rootOf(node.session);
      case 'chains':
        return this.grouped(node.session).parents.map((parent) => this.chainNode(node.session, parent));
      case 'chain':
        return (this.grouped(node.session).childrenOf.get(node.parent.id) ?? []).map((task, index) =>
          this.taskNode(node.session, task, index + 1),
        );
      case 'group':
        return page((this.grouped(node.session).free.get(node.status) ?? []).map((task) => this.taskNode(node.session, task)));
      default:
        return [];
    }
  }

  private changed(change: ViewsChange): void {
    if (change.sessionsChanged) return this.redrawAll();
    for (const [root, delta] of change.deltas) {
      const session = this.registry.get(root);
      const before = this.shown.get(root);
      if (!session || !before) continue;
      const after = this.grouped(session);
      if (rootKeys(before).join() !== rootKeys(after).join()) return this.redrawAll();
      for (const node of this.toRedraw(session, delta, before, after)) this.changeEmitter.fire(node);
    }
  }

  /** The rows to redraw for a delta whose top rows stayed: a task's own row, or the containers it moved between. */
  private toRedraw(session: ForemanSession, delta: StatusDelta, before: Grouped, after: Grouped): Set<QueueNode> {
    const redraw = new Set<QueueNode>();
    const containers = new Set<string>();
    // A worker's change shows in the row of the task it holds only when it changes the task's stage
    // (a heartbeat, say, does not).
    const heldTasks = [...delta.workers].flatMap((worker) => [before.taskOfWorker.get(worker), after.taskOfWorker.get(worker)]);
    const staged = heldTasks.filter((id): id is string => id !== undefined && before.stageOf.get(id) !== after.stageOf.get(id));
    for (const id of new Set([...delta.tasks, ...staged])) {
      const was = before.byId.get(id);
      const is = after.byId.get(id);
      const from = was && containerOf(was, before);
      const to = is && containerOf(is, after);
      if (from !== to) {
        if (from) containers.add(from);
        if (to) containers.add(to);
      } else if (is?.parentId) {
        // A chain's row counts its tasks done and says its state: the chain redraws with its tasks.
        containers.add(`chain#${is.parentId}`);
      } else if (is && to === 'chains') {
        containers.add(`chain#${is.id}`);
      } else if (is) {
        const node = this.nodes.get(`${session.root}#task#${id}`);
        if (node?.kind === 'task' && rowText(node.task, before) !== rowText(is, after)) redraw.add(node);
      }
    }
    if (containers.has('chains')) {
      const node = this.nodes.get(`${session.root}#chains`);
      if (node) redraw.add(node);
    }
    for (const key of containers) {
      const node = this.nodes.get(`${session.root}#${key}`);
      if (node) redraw.add(node);
    }
    this.shown.set(session.root, after);
    return redraw;
  }

  private redrawAll(): void {
    this.shown.clear();
    this.changeEmitter.fire(undefined);
  }

  private rootOf(session: ForemanSession): QueueNode[] {
    const grouped = this.grouped(session);
    this.shown.set(session.root, grouped);
    return rootKeys(grouped).map((key) =>
      key === 'chains'
        ? this.node(`${session.root}#chains`, () => ({ kind: 'chains', session }))
        : this.node(`${session.root}#${key}`, () => ({ kind: 'group', session, status: key.slice('group#'.length) })),
    );
  }

  private chainNode(session: ForemanSession, parent: TaskStatusView): QueueNode {
    const node = this.node(`${session.root}#chain#${parent.id}`, () => ({ kind: 'chain', session, parent }));
    if (node.kind === 'chain') node.parent = parent;
    return node;
  }

  private taskNode(session: ForemanSession, task: TaskStatusView, position?: number): QueueNode {
    const node = this.node(`${session.root}#task#${task.id}`, () => ({ kind: 'task', session, task }));
    if (node.kind === 'task') {
      node.task = task;
      if (position === undefined) delete node.position;
      else node.position = position;
    }
    return node;
  }

  /** The node kept for a key, made the first time (or again when its session was replaced). */
  private node(key: string, make: () => QueueNode): QueueNode {
    const held = this.nodes.get(key);
    const fresh = make();
    if (held && 'session' in held && 'session' in fresh && held.session === fresh.session) return held;
    this.nodes.set(key, fresh);
    return fresh;
  }

  private grouped(session: ForemanSession): Grouped {
    const snapshot = session.snapshot();
    const cached = this.cache.get(snapshot);
    if (cached) return cached;
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
    this.cache.set(snapshot, grouped);
    return grouped;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changeEmitter.dispose();
  }
}

/** The view's top rows: the chains row when there are chains, then each status group that has tasks. */
function rootKeys(grouped: Grouped): string[] {
  const keys = grouped.parents.length ? ['chains'] : [];
  for (const status of groupOrder) if (grouped.free.get(status)?.length) keys.push(`group#${status}`);
  return keys;
}

/** Where a task's row is: under a chain, in the chains row (a chain's parent), or in its status group. */
function containerOf(task: TaskStatusView, grouped: Grouped): string {
  if (task.planningPhase !== 'none') return 'chains';
  if (task.parentId) return grouped.byId.has(task.parentId) ? `chain#${task.parentId}` : 'orphan';
  return `group#${task.status}`;
}

/** What a task's row shows, as text to compare. */
function rowText(task: TaskStatusView, grouped: Grouped): string {
  const stage = grouped.stageOf.get(task.id);
  return JSON.stringify([task.title, task.status, stage, task.blockedBy, task.workerId, task.attempt, task.maxAttempts, task.lastError]);
}

function taskItem(node: Extract<QueueNode, { kind: 'task' }>, stage: string | undefined): vscode.TreeItem {
  const { task } = node;
  // Only a running task has a stage; the row's menus still go by its status.
  const shownStage = task.status === 'running' ? stage : undefined;
  const label = node.position ? `${node.position}. ${task.title}` : task.title;
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
  item.id = `${node.session.root}#task#${task.id}`;
  const parts = [task.id, (shownStage && stageWords[shownStage]) ?? task.status];
  if (task.blockedBy) parts.push(`blocked by ${task.blockedBy}`);
  if (task.workerId) parts.push(`on ${task.workerId}`);
  if (task.attempt > 0) parts.push(`attempt ${task.attempt}/${task.maxAttempts}`);
  item.description = parts.join(' · ');
  item.tooltip = task.lastError ? `${task.title}\n\nLast error: ${task.lastError}` : task.title;
  item.iconPath = shownStage ? stageIcon(shownStage) : taskIcon(task);
  item.contextValue = `task.${task.status}${task.blockedBy ? '.blocked' : ''}`;
  return item;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function page(nodes: QueueNode[]): QueueNode[] {
  return nodes.length <= pageSize ? nodes : [...nodes.slice(0, pageSize), { kind: 'more', count: nodes.length - pageSize }];
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
