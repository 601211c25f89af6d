import * as vscode from 'vscode';
import type { WorkerStatus } from '../../engine/statusView';
import { describeUsage, formatUsage, hasUsage } from '../../shared/usageText';
import { clockTime, waitingText, workerDescription, workerIcon, workerTooltip } from '../presentation';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';
import type { ViewsChange } from '../statusModel';
import { type TaskTitles, taskName, taskNameWithId, taskTitles } from '../taskNames';
import { overlapsOf } from '../../shared/overlapWords';
import { describeWithOverlap, overlapBadge } from './overlapBadge';
import { pullRequestBadge } from '../../shared/pullRequestWords';
import { describeWithPullRequest, openPullRequestCommand, pullRequestOf } from './pullRequestRow';
import { workerContextValue } from './workerContextValue';

export type WorkerNode =
  | { readonly kind: 'folder'; readonly session: ForemanSession }
  | { readonly kind: 'worker'; readonly session: ForemanSession; worker: WorkerStatus; readonly titles?: TaskTitles }
  | { readonly kind: 'detail'; readonly label: string; readonly value: string; readonly icon: string; readonly open?: vscode.Command };
type WorkerRowNode = Extract<WorkerNode, { kind: 'worker' }>;
/** A row VS Code was given, with the worker and task titles it was drawn from. */
interface DrawnRow {
  readonly node: WorkerRowNode;
  worker: WorkerStatus;
  titles: TaskTitles;
}

/**
 * The Workers view: one row per worker with its state icon, task, progress and liveness; its
 * children are the details. `contextValue` is `worker.<STATE>[.waiting][.readonly]` (see
 * workerContextValue) so menus follow the state.
 *
 * Redraws are per row and only when what the row shows changed: VS Code closes a context menu open
 * on a view whenever that view is redrawn, so a row whose text did not change is never fired. Rows
 * and details hold nothing that moves with the clock (ages are times of day, or in the tooltip,
 * which `resolveTreeItem` makes when the pointer rests on the row). Each row is one node object for
 * as long as its worker exists, which is what `onDidChangeTreeData.fire(node)` needs.
 */
export class WorkersTreeProvider implements vscode.TreeDataProvider<WorkerNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<WorkerNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly subscription: vscode.Disposable;
  /**
   * The row of each worker the view was given, by root and worker id, with the worker and task
   * titles it was drawn from: what it showed is worked out only when a change asks (a listing of
   * every row must not build each row twice).
   */
  private readonly rows = new Map<string, Map<string, DrawnRow>>();
  private readonly folders = new Map<string, WorkerNode>();
  private readonly titles = new WeakMap<object, TaskTitles>();

  constructor(private readonly registry: SessionRegistry) {
    this.subscription = registry.onDidChange((change) => this.changed(change));
  }

  getTreeItem(node: WorkerNode): vscode.TreeItem {
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(node.session.name, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon('root-folder');
        item.description = node.session.ownerNote;
        return item;
      }
      case 'worker':
        return this.rowItem(node, node.titles ?? this.titlesOf(node.session));
      case 'detail': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.description = node.value;
        item.tooltip = `${node.label}: ${node.value}`;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        if (node.open) item.command = node.open;
        return item;
      }
    }
  }

  /** The tooltip, with the heartbeat's age as of now: made when the pointer rests on a row. */
  resolveTreeItem(item: vscode.TreeItem, node: WorkerNode): vscode.TreeItem {
    if (node.kind !== 'worker') return item;
    const tooltip = workerTooltip(node.worker, Date.now(), node.titles ?? this.titlesOf(node.session));
    const badge = overlapBadge(overlapsOf(node.worker), vscode.l10n);
    if (badge) tooltip.appendMarkdown(`\n\n${badge.tooltip}`);
    item.tooltip = tooltip;
    return item;
  }

  getChildren(node?: WorkerNode): WorkerNode[] {
    const sessions = this.registry.sessions();
    if (!node) {
      const [only] = sessions;
      if (only && sessions.length === 1) return this.workersOf(only);
      return sessions.map((session) => this.folderOf(session));
    }
    if (node.kind === 'folder') return this.workersOf(node.session);
    if (node.kind === 'worker') return details(node.session, node.worker, node.titles ?? this.titlesOf(node.session));
    return [];
  }

  private changed(change: ViewsChange): void {
    if (change.sessionsChanged) return this.redrawAll();
    for (const [root, delta] of change.deltas) {
      const session = this.registry.get(root);
      if (!session) continue;
      const snapshot = session.snapshot();
      // A worker came or went: the list itself changed.
      const rows = this.rows.get(root);
      const known = snapshot.workers.length === (rows?.size ?? 0) && snapshot.workers.every((worker) => rows?.has(worker.id));
      if (!known) return this.redrawAll();
      const titles = this.titlesOf(session);
      for (const worker of snapshot.workers) {
        // A row shows its task's title, so a changed task may change its worker's row.
        if (!delta.workers.has(worker.id) && !(worker.taskId && delta.tasks.has(worker.taskId))) continue;
        const row = rows?.get(worker.id);
        if (!row) continue;
        const unchanged = this.shownOf(session, row.worker, row.titles) === this.shownOf(session, worker, titles);
        row.node.worker = row.worker = worker;
        row.titles = titles;
        if (!unchanged) this.changeEmitter.fire(row.node);
      }
    }
  }

  private redrawAll(): void {
    this.rows.clear();
    this.changeEmitter.fire(undefined);
  }

  private workersOf(session: ForemanSession): WorkerNode[] {
    const titles = this.titlesOf(session);
    const rows = this.rows.get(session.root) ?? new Map<string, DrawnRow>();
    this.rows.set(session.root, rows);
    return session.snapshot().workers.map((worker) => {
      const node: WorkerRowNode = rows.get(worker.id)?.node ?? { kind: 'worker', session, worker };
      node.worker = worker;
      rows.set(worker.id, { node, worker, titles });
      return node;
    });
  }

  private folderOf(session: ForemanSession): WorkerNode {
    let node = this.folders.get(session.root);
    if (node?.kind !== 'folder' || node.session !== session) this.folders.set(session.root, (node = { kind: 'folder', session }));
    return node;
  }

  /**
   * The titles of the tasks workers hold, once per snapshot (a row handed in by a command builds its
   * own): a row names only its worker's task, and 200 rows need not a map of 10,000 titles.
   */
  private titlesOf(session: ForemanSession): TaskTitles {
    const snapshot = session.snapshot();
    let titles = this.titles.get(snapshot);
    if (!titles) {
      const held = new Set(snapshot.workers.flatMap((worker) => (worker.taskId ? [worker.taskId] : [])));
      titles = taskTitles({ tasks: held.size ? snapshot.tasks.filter((task) => held.has(task.id)) : [] });
      this.titles.set(snapshot, titles);
    }
    return titles;
  }

  /** Everything a worker's row and its details show, as one comparable string. */
  private shownOf(session: ForemanSession, worker: WorkerStatus, titles: TaskTitles): string {
    const node: WorkerRowNode = { kind: 'worker', session, worker };
    return shownText(this.rowItem(node, titles), node, titles);
  }

  private rowItem(node: WorkerRowNode, titles: TaskTitles): vscode.TreeItem {
    const { worker } = node;
    const item = new vscode.TreeItem(
      worker.id,
      worker.taskId ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `${node.session.root}#worker#${worker.id}`;
    // An overlap with another running task is told in the row itself (issue 33): its words after the
    // state, and its icon in place of the state's (the state is the description's first word), unless
    // the agent waits for a person, which comes first.
    const badge = overlapBadge(overlapsOf(worker), vscode.l10n);
    const pull = pullRequestOf(node.session.snapshot(), worker.taskId);
    item.description = describeWithPullRequest(describeWithOverlap(workerDescription(worker, titles), badge), pull);
    item.iconPath =
      badge && !worker.needsInput ? new vscode.ThemeIcon(badge.icon[0], new vscode.ThemeColor(badge.icon[1])) : workerIcon(worker);
    item.contextValue = workerContextValue(worker, Boolean(node.session.ownerNote));
    const waiting = waitingText(worker);
    item.accessibilityInformation = {
      label: `${worker.id}, ${waiting ?? worker.state}${worker.taskId ? `, task ${taskName(titles, worker.taskId)}` : ''}, ${worker.liveness}${badge ? `, ${badge.description.slice(2)}` : ''}`,
    };
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changeEmitter.dispose();
  }
}

/** Everything a row and its details show, as one comparable string. */
function shownText(item: vscode.TreeItem, node: WorkerRowNode, titles: TaskTitles): string {
  const icon =
    item.iconPath instanceof vscode.ThemeIcon ? [item.iconPath.id, (item.iconPath.color as { id?: string } | undefined)?.id] : [];
  const rows = details(node.session, node.worker, titles).map((detail) => (detail.kind === 'detail' ? [detail.label, detail.value] : []));
  return JSON.stringify([
    item.label,
    item.description,
    icon,
    item.contextValue,
    item.collapsibleState,
    item.accessibilityInformation,
    rows,
  ]);
}

function details(session: ForemanSession, worker: WorkerStatus, titles: TaskTitles): WorkerNode[] {
  const now = Date.now();
  const rows: WorkerNode[] = [
    { kind: 'detail', label: 'Task', value: worker.taskId ? taskNameWithId(titles, worker.taskId) : '-', icon: 'tasklist' },
    { kind: 'detail', label: 'Attempt', value: String(worker.attempt), icon: 'history' },
    { kind: 'detail', label: 'Branch', value: worker.branch ?? '-', icon: 'git-branch' },
    { kind: 'detail', label: 'Worktree', value: session.worktreePath(worker.id), icon: 'folder' },
    {
      kind: 'detail',
      label: 'Last transition',
      value: `${worker.state}, at ${clockTime(worker.stateChangedAt, now)}`,
      icon: 'arrow-swap',
    },
    // A failed worker's verdict is DEAD by construction: its reason ("failed: …") says it in words.
    // Other reasons count time ("waiting for review 3m"): they are in the tooltip, not in a row.
    { kind: 'detail', label: 'Liveness', value: worker.state === 'FAILED' ? worker.livenessReason : worker.liveness, icon: 'pulse' },
  ];
  if (worker.needsInput) rows.unshift({ kind: 'detail', label: 'Waiting for you', value: worker.needsInput.message, icon: 'bell-dot' });
  // The tasks it overlaps come right under its own task.
  const overlaps = overlapBadge(overlapsOf(worker), vscode.l10n)?.details ?? [];
  const taskRow = rows.findIndex((row) => row.kind === 'detail' && row.icon === 'tasklist');
  rows.splice(taskRow + 1, 0, ...overlaps.map((detail): WorkerNode => ({ kind: 'detail', ...detail })));
  const pull = pullRequestOf(session.snapshot(), worker.taskId);
  if (pull) {
    const open = openPullRequestCommand(pull);
    rows.splice(taskRow + 1, 0, {
      kind: 'detail',
      label: 'Pull request',
      value: pullRequestBadge(pull),
      icon: 'git-pull-request',
      ...(open ? { open } : {}),
    });
  }
  if (worker.activity) {
    rows.push({
      kind: 'detail',
      label: 'Activity',
      value: `${worker.activity.text} (at ${clockTime(worker.activity.at, now)})`,
      icon: 'tools',
    });
  }
  if (hasUsage(worker.usage)) {
    rows.push({ kind: 'detail', label: 'Usage', value: `${formatUsage(worker.usage)} (${describeUsage(worker.usage)})`, icon: 'graph' });
  }
  if (worker.note) rows.push({ kind: 'detail', label: 'Note', value: worker.note, icon: 'comment' });
  if (worker.lastError) rows.push({ kind: 'detail', label: 'Last error', value: worker.lastError, icon: 'error' });
  return rows;
}
