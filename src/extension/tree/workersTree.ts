import * as vscode from 'vscode';
import { formatDuration } from '../../core/policies';
import type { WorkerStatus } from '../../engine/statusView';
import { describeUsage, formatUsage, hasUsage } from '../../shared/usageText';
import { waitingText, workerDescription, workerIcon, workerTooltip } from '../presentation';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';
import { type TaskTitles, taskName, taskNameWithId, taskTitles } from '../taskNames';
import { workerContextValue } from './workerContextValue';

export type WorkerNode =
  | { readonly kind: 'folder'; readonly session: ForemanSession }
  | { readonly kind: 'worker'; readonly session: ForemanSession; readonly worker: WorkerStatus; readonly titles?: TaskTitles }
  | { readonly kind: 'detail'; readonly label: string; readonly value: string; readonly icon: string };

/**
 * The Workers view: one row per worker with its state icon, task, heartbeat age and progress;
 * its children are the details. `contextValue` is `worker.<STATE>[.waiting][.readonly]` (see
 * workerContextValue) so menus follow the state.
 */
export class WorkersTreeProvider implements vscode.TreeDataProvider<WorkerNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<WorkerNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly registry: SessionRegistry) {
    this.subscription = registry.onDidChange(() => this.changeEmitter.fire(undefined));
  }

  getTreeItem(node: WorkerNode): vscode.TreeItem {
    const now = Date.now();
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(node.session.name, vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon('root-folder');
        item.description = node.session.ownerNote;
        return item;
      }
      case 'worker': {
        const { worker } = node;
        // Rows built by the view share one lookup; a row handed in by a command builds its own.
        const titles = node.titles ?? taskTitles(node.session.snapshot());
        const item = new vscode.TreeItem(
          worker.id,
          worker.taskId ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
        );
        item.id = `${node.session.root}#worker#${worker.id}`;
        item.description = workerDescription(worker, now, titles);
        item.iconPath = workerIcon(worker);
        item.tooltip = workerTooltip(worker, now, titles);
        item.contextValue = workerContextValue(worker, Boolean(node.session.ownerNote));
        const waiting = waitingText(worker);
        item.accessibilityInformation = {
          label: `${worker.id}, ${waiting ?? worker.state}${worker.taskId ? `, task ${taskName(titles, worker.taskId)}` : ''}, ${worker.livenessReason}`,
        };
        return item;
      }
      case 'detail': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.description = node.value;
        item.tooltip = `${node.label}: ${node.value}`;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        return item;
      }
    }
  }

  getChildren(node?: WorkerNode): WorkerNode[] {
    const sessions = this.registry.sessions();
    if (!node) {
      const [only] = sessions;
      if (only && sessions.length === 1) return this.workersOf(only);
      return sessions.map((session) => ({ kind: 'folder', session }));
    }
    if (node.kind === 'folder') return this.workersOf(node.session);
    if (node.kind === 'worker') return this.details(node.session, node.worker, node.titles ?? taskTitles(node.session.snapshot()));
    return [];
  }

  private workersOf(session: ForemanSession): WorkerNode[] {
    const snapshot = session.snapshot();
    const titles = taskTitles(snapshot);
    return snapshot.workers.map((worker) => ({ kind: 'worker', session, worker, titles }));
  }

  private details(session: ForemanSession, worker: WorkerStatus, titles: TaskTitles): WorkerNode[] {
    const now = Date.now();
    const rows: WorkerNode[] = [
      { kind: 'detail', label: 'Task', value: worker.taskId ? taskNameWithId(titles, worker.taskId) : '-', icon: 'tasklist' },
      { kind: 'detail', label: 'Attempt', value: String(worker.attempt), icon: 'history' },
      { kind: 'detail', label: 'Branch', value: worker.branch ?? '-', icon: 'git-branch' },
      { kind: 'detail', label: 'Worktree', value: session.worktreePath(worker.id), icon: 'folder' },
      {
        kind: 'detail',
        label: 'Last transition',
        value: `${worker.state}, ${formatDuration(now - worker.stateChangedAt)} ago`,
        icon: 'arrow-swap',
      },
      // A failed worker's verdict is DEAD by construction: its reason ("failed: …") says it in words.
      {
        kind: 'detail',
        label: 'Liveness',
        value: worker.state === 'FAILED' ? worker.livenessReason : `${worker.liveness}: ${worker.livenessReason}`,
        icon: 'pulse',
      },
    ];
    if (worker.needsInput) rows.unshift({ kind: 'detail', label: 'Waiting for you', value: worker.needsInput.message, icon: 'bell-dot' });
    if (worker.activity) {
      const age = formatDuration(now - worker.activity.at);
      rows.push({ kind: 'detail', label: 'Activity', value: `${worker.activity.text} (${age} ago)`, icon: 'tools' });
    }
    if (hasUsage(worker.usage)) {
      rows.push({ kind: 'detail', label: 'Usage', value: `${formatUsage(worker.usage)} (${describeUsage(worker.usage)})`, icon: 'graph' });
    }
    if (worker.note) rows.push({ kind: 'detail', label: 'Note', value: worker.note, icon: 'comment' });
    if (worker.lastError) rows.push({ kind: 'detail', label: 'Last error', value: worker.lastError, icon: 'error' });
    return rows;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changeEmitter.dispose();
  }
}
