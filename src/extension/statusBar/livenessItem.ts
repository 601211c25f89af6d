import * as vscode from 'vscode';
import { formatDuration } from '../../core/policies';
import type { WorkerStatus } from '../../engine/statusView';
import { CommandId } from '../commands/commandIds';
import type { SessionRegistry } from '../sessionRegistry';

const labels: Array<[state: string, label: string]> = [
  ['WORKING', 'working'],
  ['ASSIGNED', 'assigned'],
  ['IN_REVIEW', 'review'],
  ['APPROVED', 'approved'],
  ['STALE', 'stale'],
  ['FAILED', 'failed'],
];

/** "3 working · 1 review · 1 stale": counts by state across every folder of the window. */
export function summarize(workers: readonly WorkerStatus[]): { text: string; attention: boolean } {
  const counts = new Map<string, number>();
  for (const worker of workers) counts.set(worker.state, (counts.get(worker.state) ?? 0) + 1);
  const parts = labels.filter(([state]) => counts.get(state)).map(([state, label]) => `${counts.get(state)} ${label}`);
  const idle = (counts.get('IDLE') ?? 0) + (counts.get('COMPLETED') ?? 0);
  if (parts.length === 0) parts.push(workers.length ? `${idle} idle` : 'no workers');
  const attention = (counts.get('STALE') ?? 0) > 0 || (counts.get('IN_REVIEW') ?? 0) > 0 || (counts.get('FAILED') ?? 0) > 0;
  return { text: parts.join(' · '), attention };
}

/** The liveness item: a glance at the crew; warning colours when a person is needed. */
export class LivenessStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('foreman.liveness', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly registry: SessionRegistry) {
    this.item.name = 'Foreman Liveness';
    this.item.command = CommandId.showWorkers;
    this.subscription = registry.onDidChange(() => this.update());
    this.update();
  }

  private update(): void {
    const sessions = this.registry.sessions();
    if (sessions.length === 0) {
      this.item.hide();
      return;
    }
    const workers = sessions.flatMap((session) => session.snapshot().workers);
    const { text, attention } = summarize(workers);
    this.item.text = `$(${attention ? 'warning' : 'pulse'}) ${text}`;
    this.item.backgroundColor = attention ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.tooltip = this.tooltip(workers);
    this.item.accessibilityInformation = { label: `Foreman: ${text}` };
    this.item.show();
  }

  private tooltip(workers: readonly WorkerStatus[]): vscode.MarkdownString {
    const now = Date.now();
    const tip = new vscode.MarkdownString(undefined, true);
    tip.isTrusted = { enabledCommands: [CommandId.openDashboard, CommandId.showWorkers] };
    tip.appendMarkdown('**Foreman**\n\n');
    for (const worker of workers) {
      const age = worker.lastHeartbeatMs === null ? 'no heartbeat' : `♥ ${formatDuration(now - worker.lastHeartbeatMs)} ago`;
      tip.appendMarkdown(`- \`${worker.id}\` ${worker.state}${worker.taskId ? ` on \`${worker.taskId}\`` : ''} — ${age}\n`);
    }
    tip.appendMarkdown(`\n[Open Workers](command:${CommandId.showWorkers}) · [Open Dashboard](command:${CommandId.openDashboard})`);
    return tip;
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
