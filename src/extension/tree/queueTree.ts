import * as vscode from 'vscode';
import type { TaskStatusView } from '../../engine/statusView';
import { taskIcon } from '../presentation';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';

/** Long groups show this many tasks and a row saying how many more there are. */
const pageSize = 200;
const groupOrder = ['running', 'queued', 'idle', 'failed', 'cancelled', 'done'] as const;

export type QueueNode =
  | { readonly kind: 'folder'; readonly session: ForemanSession }
  | { readonly kind: 'chains'; readonly session: ForemanSession; readonly parents: TaskStatusView[] }
  | { readonly kind: 'chain'; readonly session: ForemanSession; readonly parent: TaskStatusView; readonly children: TaskStatusView[] }
  | { readonly kind: 'group'; readonly session: ForemanSession; readonly status: string; readonly tasks: TaskStatusView[] }
  | { readonly kind: 'task'; readonly session: ForemanSession; readonly task: TaskStatusView; readonly position?: number }
  | { readonly kind: 'more'; readonly count: number };

interface Grouped {
  parents: TaskStatusView[];
  childrenOf: Map<string, TaskStatusView[]>;
  free: Map<string, TaskStatusView[]>;
}

/**
 * The Queue & Chains view: chains as parents with their tasks in order (blocked-by shown), and
 * free tasks grouped by status. Grouping is computed once per snapshot, not per expand.
 */
export class QueueTreeProvider implements vscode.TreeDataProvider<QueueNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<QueueNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly subscription: vscode.Disposable;
  private readonly cache = new WeakMap<object, Grouped>();
  /** What the view showed last; nothing in it ages, so an unchanged queue is not redrawn. */
  private shown: string;

  constructor(private readonly registry: SessionRegistry) {
    this.shown = queueSignature(registry.sessions());
    // The registry also ticks while workers are busy (the Workers view's ages move). Redrawing this
    // view then would only close a context menu a person has open on it, every few seconds.
    this.subscription = registry.onDidChange(() => {
      const now = queueSignature(registry.sessions());
      if (now === this.shown) return;
      this.shown = now;
      this.changeEmitter.fire(undefined);
    });
  }

  getTreeItem(node: QueueNode): vscode.TreeItem {
    const collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    switch (node.kind) {
      case 'folder':
        return Object.assign(new vscode.TreeItem(node.session.name, vscode.TreeItemCollapsibleState.Expanded), {
          iconPath: new vscode.ThemeIcon('root-folder'),
        });
      case 'chains':
        return Object.assign(new vscode.TreeItem(`Chains (${node.parents.length})`, vscode.TreeItemCollapsibleState.Expanded), {
          iconPath: new vscode.ThemeIcon('list-ordered'),
        });
      case 'chain': {
        const done = node.children.filter((c) => c.status === 'done').length;
        const item = new vscode.TreeItem(node.parent.title, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `${node.session.root}#chain#${node.parent.id}`;
        item.description = `${node.parent.status} · ${done}/${node.children.length} done`;
        item.iconPath = taskIcon(node.parent);
        item.contextValue = `chain.${node.parent.status}`;
        return item;
      }
      case 'group': {
        const item = new vscode.TreeItem(
          `${capitalize(node.status)} (${node.tasks.length})`,
          node.status === 'done' || node.status === 'cancelled' ? collapsed : vscode.TreeItemCollapsibleState.Expanded,
        );
        item.id = `${node.session.root}#group#${node.status}`;
        return item;
      }
      case 'task':
        return this.taskItem(node);
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
      return only && sessions.length === 1 ? this.rootOf(only) : sessions.map((session) => ({ kind: 'folder', session }));
    }
    switch (node.kind) {
      case 'folder':
        return this.rootOf(node.session);
      case 'chains':
        return node.parents.map((parent) => ({
          kind: 'chain',
          session: node.session,
          parent,
          children: this.grouped(node.session).childrenOf.get(parent.id) ?? [],
        }));
      case 'chain':
        return node.children.map((task, index) => ({ kind: 'task', session: node.session, task, position: index + 1 }));
      case 'group':
        return page(node.tasks.map((task) => ({ kind: 'task', session: node.session, task })));
      default:
        return [];
    }
  }

  private rootOf(session: ForemanSession): QueueNode[] {
    const { parents, free } = this.grouped(session);
    const nodes: QueueNode[] = parents.length ? [{ kind: 'chains', session, parents }] : [];
    for (const status of groupOrder) {
      const tasks = free.get(status);
      if (tasks?.length) nodes.push({ kind: 'group', session, status, tasks });
    }
    return nodes;
  }

  private grouped(session: ForemanSession): Grouped {
    const snapshot = session.snapshot();
    const cached = this.cache.get(snapshot);
    if (cached) return cached;
    const grouped: Grouped = { parents: [], childrenOf: new Map(), free: new Map() };
    for (const task of snapshot.tasks) {
      if (task.planningPhase !== 'none') grouped.parents.push(task);
      else if (task.parentId) push(grouped.childrenOf, task.parentId, task);
      else push(grouped.free, task.status, task);
    }
    this.cache.set(snapshot, grouped);
    return grouped;
  }

  private taskItem(node: Extract<QueueNode, { kind: 'task' }>): vscode.TreeItem {
    const { task } = node;
    const label = node.position ? `${node.position}. ${task.title}` : task.title;
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
    item.id = `${node.session.root}#task#${task.id}`;
    const parts = [task.id, task.status];
    if (task.blockedBy) parts.push(`blocked by ${task.blockedBy}`);
    if (task.workerId) parts.push(`on ${task.workerId}`);
    if (task.attempt > 0) parts.push(`attempt ${task.attempt}/${task.maxAttempts}`);
    item.description = parts.join(' · ');
    item.tooltip = task.lastError ? `${task.title}\n\nLast error: ${task.lastError}` : task.title;
    item.iconPath = taskIcon(task);
    item.contextValue = `task.${task.status}${task.blockedBy ? '.blocked' : ''}`;
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changeEmitter.dispose();
  }
}

/** Everything the view renders of each folder's tasks, as one comparable string. */
export function queueSignature(sessions: readonly ForemanSession[]): string {
  const parts: string[] = [];
  for (const session of sessions) {
    parts.push(session.root);
    for (const task of session.snapshot().tasks) {
      const { id, title, status, blockedBy, workerId, attempt, maxAttempts, parentId, planningPhase, lastError } = task;
      parts.push(JSON.stringify([id, title, status, blockedBy, workerId, attempt, maxAttempts, parentId, planningPhase, lastError]));
    }
  }
  return parts.join('\n');
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
