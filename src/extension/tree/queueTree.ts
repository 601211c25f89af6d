import * as vscode from 'vscode';
import type { StatusSnapshot, TaskStatusView } from '../../engine/statusView';
import { stageIcon, taskIcon } from '../presentation';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';
import type { StatusDelta, ViewsChange } from '../statusModel';
import { overlapsOf } from '../../shared/overlapWords';
import { describeWithOverlap, overlapBadge } from './overlapBadge';
import { describeWithPullRequest, pullRequestLink } from './pullRequestRow';
import { taskContextValue } from './workerContextValue';
import { type Grouped, containerOf, groupName, groupTasks, rootKeys, rowText, stageWords } from './queueGrouping';

/** Long groups show this many tasks and a row saying how many more there are. */
const pageSize = 200;

export type QueueNode =
  | { readonly kind: 'folder'; readonly session: ForemanSession }
  | { readonly kind: 'chains'; readonly session: ForemanSession }
  | { readonly kind: 'chain'; readonly session: ForemanSession; parent: TaskStatusView }
  | { readonly kind: 'group'; readonly session: ForemanSession; readonly status: string }
  | { readonly kind: 'task'; readonly session: ForemanSession; task: TaskStatusView; position?: number; drawn?: DrawnTask }
  | { readonly kind: 'more'; readonly count: number };

/**
 * A task row's item with what it was made from: a task's row object is replaced when the task
 * changes (StatusModel), so an item made from the same object, stage and position is the same
 * item. A full redraw after a change then makes only the changed rows' items, not 10,000.
 */
interface DrawnTask {
  readonly task: TaskStatusView;
  readonly stage: string | undefined;
  readonly position: number | undefined;
  readonly item: vscode.TreeItem;
}

/**
 * The nodes kept for one folder's session, so that `fire(node)` finds the row VS Code holds:
 * the top rows by key (`folder`, `chains`, `group#<status>`), chains and tasks by task id. Task ids
 * are the keys rather than one joined string per row: a string made anew for every lookup is
 * hashed anew, which was most of the cost of listing 10,000 rows.
 */
interface FolderNodes {
  readonly session: ForemanSession;
  readonly top: Map<string, QueueNode>;
  readonly chains: Map<string, QueueNode>;
  readonly tasks: Map<string, QueueNode>;
}

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
  /** The nodes kept for each folder's session, by root. */
  private readonly nodes = new Map<string, FolderNodes>();

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
        // The row as the state has it now: a redraw fires the node kept from the last listing.
        node.parent = this.grouped(node.session).byId.get(node.parent.id) ?? node.parent;
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
          `${groupName(node.status)} (${count})`,
          node.status === 'done' || node.status === 'cancelled' ? collapsed : vscode.TreeItemCollapsibleState.Expanded,
        );
        item.id = `${node.session.root}#group#${node.status}`;
        return item;
      }
      case 'task': {
        node.task = this.grouped(node.session).byId.get(node.task.id) ?? node.task;
        const stage = this.grouped(node.session).stageOf.get(node.task.id);
        const { drawn } = node;
        if (drawn?.task === node.task && drawn.stage === stage && drawn.position === node.position) return drawn.item;
        const item = taskItem(node, stage);
        node.drawn = { task: node.task, stage, position: node.position, item };
        return item;
      }
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
        : sessions.map((session) => keep(this.nodesOf(session).top, 'folder', () => ({ kind: 'folder', session })));
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
        return page(this.grouped(node.session).free.get(node.status) ?? [], (task) => this.taskNode(node.session, task));
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
        const node = this.nodes.get(session.root)?.tasks.get(id);
        if (node?.kind === 'task' && rowText(node.task, before) !== rowText(is, after)) redraw.add(node);
      }
    }
    for (const key of containers) {
      const node = this.heldNode(session.root, key);
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
    const { top } = this.nodesOf(session);
    return rootKeys(grouped).map((key) =>
      keep(top, key, () =>
        key === 'chains' ? { kind: 'chains', session } : { kind: 'group', session, status: key.slice('group#'.length) },
      ),
    );
  }

  private chainNode(session: ForemanSession, parent: TaskStatusView): QueueNode {
    const node = keep(this.nodesOf(session).chains, parent.id, () => ({ kind: 'chain', session, parent }));
    if (node.kind === 'chain') node.parent = parent;
    return node;
  }

  private taskNode(session: ForemanSession, task: TaskStatusView, position?: number): QueueNode {
    const node = keep(this.nodesOf(session).tasks, task.id, () => ({ kind: 'task', session, task }));
    if (node.kind === 'task') {
      node.task = task;
      node.position = position;
    }
    return node;
  }

  /** The nodes kept for a session's folder; new ones when the folder's session was replaced. */
  private nodesOf(session: ForemanSession): FolderNodes {
    let held = this.nodes.get(session.root);
    if (held?.session !== session) this.nodes.set(session.root, (held = { session, top: new Map(), chains: new Map(), tasks: new Map() }));
    return held;
  }

  /** The node VS Code holds for a container key (`chains`, `chain#<id>`, `group#<status>`), if it was given one. */
  private heldNode(root: string, key: string): QueueNode | undefined {
    const held = this.nodes.get(root);
    if (key.startsWith('chain#')) return held?.chains.get(key.slice('chain#'.length));
    return held?.top.get(key);
  }

  private grouped(session: ForemanSession): Grouped {
    const snapshot = session.snapshot();
    let grouped = this.cache.get(snapshot);
    if (!grouped) this.cache.set(snapshot, (grouped = groupTasks(snapshot)));
    return grouped;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changeEmitter.dispose();
  }
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
  // A running task that overlaps another (issue 33) says so in its row, as its worker's row does.
  const badge = overlapBadge(overlapsOf(task), vscode.l10n);
  item.description = describeWithPullRequest(describeWithOverlap(parts.join(' · '), badge), task.pullRequest);
  const tooltip = task.lastError ? `${task.title}\n\nLast error: ${task.lastError}` : task.title;
  // A pull request is a link in the tooltip: the row's click stays what it was.
  const extra = [badge?.tooltip, task.pullRequest ? pullRequestLink(task.pullRequest) : undefined].filter(Boolean);
  item.tooltip = extra.length ? new vscode.MarkdownString([escapeTitle(tooltip), ...extra].join('\n\n'), true) : tooltip;
  item.iconPath = badge
    ? new vscode.ThemeIcon(badge.icon[0], new vscode.ThemeColor(badge.icon[1]))
    : shownStage
      ? stageIcon(shownStage)
      : taskIcon(task);
  item.contextValue = taskContextValue(task);
  return item;
}

/** A title in a Markdown tooltip reads as written. */
function escapeTitle(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

/** The node kept under `key`, made the first time it is asked for. */
function keep(nodes: Map<string, QueueNode>, key: string, make: () => QueueNode): QueueNode {
  let node = nodes.get(key);
  if (!node) nodes.set(key, (node = make()));
  return node;
}

/** A group's first page of rows (only those get nodes), and a row counting the rest. */
function page(tasks: readonly TaskStatusView[], nodeOf: (task: TaskStatusView) => QueueNode): QueueNode[] {
  const shown = tasks.slice(0, pageSize).map(nodeOf);
  return tasks.length <= pageSize ? shown : [...shown, { kind: 'more', count: tasks.length - pageSize }];
}
