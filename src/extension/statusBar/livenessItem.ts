import * as vscode from 'vscode';
import { formatDuration } from '../../core/policies';
import type { WorkerStatus } from '../../engine/statusView';
import { escapeMarkdown } from '../presentation';
import { heartbeatExpected } from '../../shared/livenessWords';
import { CommandId } from '../commands/commandIds';
import { taskName, taskTitles } from '../taskNames';
import type { SessionRegistry } from '../sessionRegistry';

/** "3 working": a count per state, in the order the item lists them; whole phrases, for translations. */
const counted: Array<[state: string, phrase: (count: number) => string]> = [
  ['WORKING', (count) => vscode.l10n.t('{0} working', count)],
  ['ASSIGNED', (count) => vscode.l10n.t('{0} assigned', count)],
  ['IN_REVIEW', (count) => vscode.l10n.t('{0} review', count)],
  ['APPROVED', (count) => vscode.l10n.t('{0} approved', count)],
  ['STALE', (count) => vscode.l10n.t('{0} stale', count)],
  ['PAUSED', (count) => vscode.l10n.t('{0} paused', count)],
  ['FAILED', (count) => vscode.l10n.t('{0} failed', count)],
];

/**
 * "1 waiting for you · 3 working · 1 review · 1 stale": counts by state across every folder of the
 * window. A worker waiting for a person is counted there and not again as working.
 */
export function summarize(workers: readonly WorkerStatus[]): { text: string; attention: boolean; waiting: number } {
  const counts = new Map<string, number>();
  let waiting = 0;
  for (const worker of workers) {
    if (worker.needsInput) waiting++;
    else counts.set(worker.state, (counts.get(worker.state) ?? 0) + 1);
  }
  const parts = counted.flatMap(([state, phrase]) => {
    const count = counts.get(state);
    return count ? [`${phrase(count)}${state === 'PAUSED' ? resumesIn(workers) : ''}`] : [];
  });
  if (waiting) parts.unshift(vscode.l10n.t('{0} waiting for you', waiting));
  const idle = (counts.get('IDLE') ?? 0) + (counts.get('COMPLETED') ?? 0);
  if (parts.length === 0) parts.push(workers.length ? vscode.l10n.t('{0} idle', idle) : vscode.l10n.t('no workers'));
  const attention = waiting > 0 || (counts.get('STALE') ?? 0) > 0 || (counts.get('IN_REVIEW') ?? 0) > 0 || (counts.get('FAILED') ?? 0) > 0;
  return { text: parts.join(' · '), attention, waiting };
}

/** " (resumes in 12m)": the countdown to the first paused worker's reset, read at each refresh. */
function resumesIn(workers: readonly WorkerStatus[], now = Date.now()): string {
  const first = Math.min(...workers.map((worker) => worker.pausedUntil ?? Number.POSITIVE_INFINITY));
  return Number.isFinite(first) ? ` ${vscode.l10n.t('(resumes in {0})', formatDuration(Math.max(0, first - now)))}` : '';
}

/** A heartbeat's age only where one is due; in review, approved or failed, what the worker waits for, or why it stopped. */
function lastSign(worker: WorkerStatus, now: number): string {
  if (heartbeatExpected(worker.state)) {
    return worker.lastHeartbeatMs === null
      ? vscode.l10n.t('no heartbeat yet')
      : `♥ ${vscode.l10n.t('{0} ago', formatDuration(now - worker.lastHeartbeatMs))}`;
  }
  return worker.taskId ? escapeMarkdown(worker.livenessReason) : '';
}

/** The liveness item: a glance at the crew; warning colours when a person is needed. */
export class LivenessStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('foreman.liveness', vscode.StatusBarAlignment.Left, 50);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly registry: SessionRegistry) {
    this.item.name = vscode.l10n.t('Foreman Liveness');
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
    const { text, attention, waiting } = summarize(workers);
    this.item.text = `$(${waiting ? 'bell-dot' : attention ? 'warning' : 'pulse'}) ${text}`;
    this.item.backgroundColor = attention ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.tooltip = this.tooltip(workers);
    this.item.accessibilityInformation = { label: `Foreman: ${text}` };
    this.item.show();
  }

  private tooltip(workers: readonly WorkerStatus[]): vscode.MarkdownString {
    const now = Date.now();
    const titles = taskTitles({ tasks: this.registry.sessions().flatMap((session) => session.snapshot().tasks) });
    const on = (worker: WorkerStatus) =>
      worker.taskId ? ` ${vscode.l10n.t('on {0}', `**${escapeMarkdown(taskName(titles, worker.taskId))}**`)}` : '';
    const tip = new vscode.MarkdownString(undefined, true);
    tip.isTrusted = { enabledCommands: [CommandId.openDashboard, CommandId.showWorkers] };
    tip.appendMarkdown('**Foreman**\n\n');
    const waiting = workers.filter((worker) => worker.needsInput);
    if (waiting.length) {
      tip.appendMarkdown(`**${vscode.l10n.t('Waiting for you')}**\n\n`);
      for (const worker of waiting) {
        const message = escapeMarkdown(worker.needsInput?.message ?? '');
        tip.appendMarkdown(`- $(bell-dot) \`${worker.id}\`${on(worker)}: ${message}\n`);
      }
      tip.appendMarkdown('\n');
    }
    for (const worker of workers) {
      const sign = lastSign(worker, now);
      const doing = worker.activity && !worker.needsInput ? ` — ${escapeMarkdown(worker.activity.text)}` : '';
      const id = worker.taskId ? ` (\`${worker.taskId}\`)` : '';
      tip.appendMarkdown(`- \`${worker.id}\` ${worker.state}${on(worker)}${id}${sign ? ` — ${sign}` : ''}${doing}\n`);
    }
    const workersLink = `[${vscode.l10n.t('Open Workers')}](command:${CommandId.showWorkers})`;
    tip.appendMarkdown(`\n${workersLink} · [${vscode.l10n.t('Open Dashboard')}](command:${CommandId.openDashboard})`);
    return tip;
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
