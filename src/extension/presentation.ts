import * as vscode from 'vscode';
import { formatDuration } from '../core/policies';
import type { TaskStatusView, WorkerStatus } from '../engine/statusView';
import { describeUsage, formatUsage, hasUsage } from '../shared/usageText';
import { shownLiveness } from '../shared/livenessWords';
import { confinementWords } from '../shared/confinementWords';
import { type TaskTitles, taskName } from './taskNames';

/** How states look: codicons with theme colours, so every theme (and high contrast) reads them. */
const workerIcons: Record<string, [icon: string, color?: string]> = {
  IDLE: ['circle-large-outline', 'disabledForeground'],
  ASSIGNED: ['debug-pause', 'charts.blue'],
  WORKING: ['sync~spin', 'charts.blue'],
  IN_REVIEW: ['eye', 'charts.yellow'],
  APPROVED: ['pass', 'charts.green'],
  COMPLETED: ['pass-filled', 'charts.green'],
  STALE: ['warning', 'list.warningForeground'],
  PAUSED: ['watch', 'charts.orange'],
  FAILED: ['error', 'list.errorForeground'],
};

const taskIcons: Record<string, [icon: string, color?: string]> = {
  idle: ['circle-large-outline', 'disabledForeground'],
  queued: ['clock', 'charts.blue'],
  running: ['play-circle', 'charts.blue'],
  done: ['pass-filled', 'charts.green'],
  failed: ['error', 'list.errorForeground'],
  cancelled: ['circle-slash', 'disabledForeground'],
};

function themeIcon([icon, color]: [string, string?]): vscode.ThemeIcon {
  return new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
}

/** A running task whose worker is at a stage a person acts on (review…) wears that worker state's icon. */
export function stageIcon(workerState: string): vscode.ThemeIcon {
  return themeIcon(workerIcons[workerState] ?? ['question']);
}

export function workerIcon(worker: WorkerStatus): vscode.ThemeIcon {
  // The person colour, as on the dashboard: waiting for an answer is not a warning.
  if (worker.needsInput) return themeIcon(['bell-dot', 'charts.purple']);
  if (worker.state === 'WORKING' && worker.liveness === 'WARN') return themeIcon(['sync~spin', 'list.warningForeground']);
  return themeIcon(workerIcons[worker.state] ?? ['question']);
}

export function taskIcon(task: TaskStatusView): vscode.ThemeIcon {
  if (task.status === 'queued' && task.blockedBy) return themeIcon(['lock', 'disabledForeground']);
  return themeIcon(taskIcons[task.status] ?? ['question']);
}

export function heartbeatAge(worker: WorkerStatus, now: number): string | undefined {
  return worker.lastHeartbeatMs === null ? undefined : `♥ ${formatDuration(now - worker.lastHeartbeatMs)}`;
}

/** States in which an agent runs and its heartbeat and progress mean something. */
const agentRunning = new Set(['WORKING', 'STALE']);

/** "waiting for you: Bash: rm -rf build" — the row's first words when an agent waits for a person. */
export function waitingText(worker: WorkerStatus): string | undefined {
  return worker.needsInput ? vscode.l10n.t('waiting for you: {0}', worker.needsInput.message) : undefined;
}

/**
 * "WORKING · Add login · 40% · Bash: npm test", or "waiting for you: … · Add login" while the agent
 * waits; the task by its title (the id is in the tooltip). Nothing in it moves with the clock: a
 * row is redrawn only when what it says changed (a redraw closes a context menu open on the view),
 * and the heartbeat's age is in the tooltip, made when the pointer rests on the row.
 */
export function workerDescription(worker: WorkerStatus, titles: TaskTitles): string {
  const task = worker.taskId ? taskName(titles, worker.taskId) : undefined;
  const waiting = waitingText(worker);
  if (waiting) return [waiting, task].filter(Boolean).join(' · ');
  const parts: string[] = [worker.state];
  if (task) parts.push(task);
  // A machine with no live owner launches nothing (issue 29): said in fixed words, so the row stays still.
  if (worker.host) {
    const down = worker.hostOwner && !worker.hostOwner.alive;
    parts.push(down ? vscode.l10n.t('on {0} (machine down)', worker.host) : vscode.l10n.t('on {0}', worker.host));
  }
  // In review or approved the agent has exited: its progress is stale.
  const running = worker.taskId !== null && agentRunning.has(worker.state);
  if (worker.progress !== null && running) parts.push(`${Math.round(worker.progress * 100)}%`);
  // A STALE row says STALE once, then why it went stale (fixed words, so the row stays still).
  const liveness = shownLiveness(worker);
  if (liveness && liveness !== worker.state) parts.push(liveness);
  if (worker.state === 'STALE' && worker.lastError) parts.push(worker.lastError);
  const paused = pausedText(worker);
  if (paused) parts.push(paused);
  if (worker.activity) parts.push(worker.activity.text);
  // Unconfined is the one confinement worth a warning in the row itself; the tooltip names them all.
  if (worker.taskId && worker.confinement && confinementWords(worker.confinement).warning)
    parts.push(`⚠ ${confinementWords(worker.confinement).label}`);
  // A free worker next to its failed manual task says so: nothing would run that task by itself.
  if (worker.lastTaskFailed && !task) parts.push(worker.livenessReason);
  return parts.join(' · ');
}

/**
 * "rate limited (HTTP 429) · resumes at 14:00:00" for a worker waiting out a usage limit: a time of
 * day, not a countdown, since the row keeps nothing that moves with the clock (the countdown is in
 * the tooltip, the status bar and the dashboard).
 */
export function pausedText(worker: WorkerStatus): string | undefined {
  if (worker.state !== 'PAUSED') return undefined;
  const why = worker.lastError ?? vscode.l10n.t('usage limit');
  return worker.pausedUntil === undefined ? why : vscode.l10n.t('{0} · resumes at {1}', why, clockTime(worker.pausedUntil, Date.now()));
}

export function workerTooltip(worker: WorkerStatus, now: number, titles: TaskTitles): vscode.MarkdownString {
  const tip = new vscode.MarkdownString(undefined, true);
  tip.supportThemeIcons = true;
  const id = `**${escapeMarkdown(worker.id)}**`;
  const heading = worker.host
    ? vscode.l10n.t('{0} — {1} on {2}', id, worker.state, escapeMarkdown(worker.host))
    : vscode.l10n.t('{0} — {1}', id, worker.state);
  tip.appendMarkdown(`${heading}\n\n`);
  if (worker.needsInput) {
    const waited = formatDuration(now - worker.needsInput.at);
    tip.appendMarkdown(
      `$(bell-dot) ${vscode.l10n.t('**Waiting for you:** {0} ({1})', escapeMarkdown(worker.needsInput.message), waited)}\n\n`,
    );
  }
  if (worker.activity) {
    const doing = `\`${worker.activity.text.replace(/`/g, "'")}\``;
    tip.appendMarkdown(`${vscode.l10n.t('Now: {0} ({1} ago)', doing, formatDuration(now - worker.activity.at))}\n\n`);
  }
  if (worker.taskId) {
    tip.appendMarkdown(
      `${vscode.l10n.t('Task **{0}** ({1})', escapeMarkdown(taskName(titles, worker.taskId)), `\`${worker.taskId}\``)}\n\n`,
    );
    tip.appendMarkdown(`${vscode.l10n.t('Attempt {0}, branch {1}', worker.attempt, `\`${worker.branch ?? '-'}\``)}\n\n`);
    if (worker.confinement) {
      const words = confinementWords(worker.confinement);
      tip.appendMarkdown(
        `${words.warning ? '$(warning)' : '$(lock)'} ${vscode.l10n.t('Confinement: {0}', escapeMarkdown(words.detail))}\n\n`,
      );
    }
  }
  // A failed worker's verdict is DEAD by construction; its last error, below, says what happened.
  if (worker.state !== 'FAILED')
    tip.appendMarkdown(`${vscode.l10n.t('Liveness: {0} — {1}', worker.liveness, escapeMarkdown(worker.livenessReason))}\n\n`);
  const age = heartbeatAge(worker, now);
  if (age) tip.appendMarkdown(`${vscode.l10n.t('Last heartbeat {0} ago', age.slice(2))}\n\n`);
  if (worker.note) tip.appendMarkdown(`${vscode.l10n.t('Note: {0}', escapeMarkdown(worker.note))}\n\n`);
  if (hasUsage(worker.usage))
    tip.appendMarkdown(`${vscode.l10n.t('Usage: {0} ({1})', formatUsage(worker.usage), describeUsage(worker.usage))}\n\n`);
  if (worker.lastError) tip.appendMarkdown(vscode.l10n.t('Last error: {0}', escapeMarkdown(worker.lastError)));
  return tip;
}

const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const dayAndTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });

/** A moment as the time of day ("14:02:11"), with the date when it is not today: it does not move with the clock. */
export function clockTime(at: number, now: number): string {
  const day = (time: number) => new Date(time).setHours(0, 0, 0, 0);
  return (day(at) === day(now) ? timeOfDay : dayAndTime).format(at);
}

export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, '\\$&');
}
