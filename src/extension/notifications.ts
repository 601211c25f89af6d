import * as vscode from 'vscode';
import type { EngineEvent } from '../engine/unit';
import { CommandId } from './commands/commandIds';
import type { ForemanConfiguration } from './configuration';
import type { ForemanSession } from './session';

type Kind = keyof ForemanConfiguration['notifications'];

/**
 * Notifications only where a person is needed (ARCHITECTURE §9): a review is ready, a worker went
 * STALE, a task failed for good. Each is shown once per (task, attempt, state) and can be turned
 * off per kind in the settings.
 */
export class Notifier {
  private readonly shown = new Set<string>();

  constructor(
    private readonly session: ForemanSession,
    private readonly enabled: () => ForemanConfiguration['notifications'],
  ) {}

  onEvents(events: readonly EngineEvent[]): void {
    for (const event of events) {
      if (event.kind === 'worker' && event.to === 'IN_REVIEW') this.worker(event.id, 'reviewReady');
      else if (event.kind === 'worker' && event.to === 'STALE') this.worker(event.id, 'stale');
      else if (event.kind === 'task' && event.to === 'failed') this.failed(event.id);
    }
  }

  private worker(workerId: string, kind: Kind): void {
    const worker = this.session.snapshot().workers.find((w) => w.id === workerId);
    if (!worker?.taskId || !this.once(kind, worker.taskId, worker.attempt, worker.state)) return;
    const target = { kind: 'worker' as const, session: this.session, worker };
    if (kind === 'reviewReady') {
      void this.ask(`Foreman: ${worker.taskId} is ready for review (${worker.id}).`, target, [
        ['Review', CommandId.showChanges],
        ['Approve', CommandId.approve],
        ['Show Log', CommandId.showLog],
      ]);
    } else {
      void this.ask(
        `Foreman: ${worker.id} went STALE on ${worker.taskId}: ${worker.livenessReason}.`,
        target,
        [
          ['Show Log', CommandId.showLog],
          ['Cancel Task', CommandId.cancel],
        ],
        'warning',
      );
    }
  }

  private failed(taskId: string): void {
    // A failed attempt that was requeued is not "failed for good"; the snapshot says which.
    const task = this.session.snapshot().tasks.find((t) => t.id === taskId);
    if (!task || task.status !== 'failed' || !this.once('failed', task.id, task.attempt, 'failed')) return;
    const holder = this.session.snapshot().workers.find((w) => w.taskId === taskId);
    const target = holder
      ? { kind: 'worker' as const, session: this.session, worker: holder }
      : { kind: 'task' as const, session: this.session, task };
    void this.ask(
      `Foreman: ${task.title} (${task.id}) failed after ${task.attempt} attempts${task.lastError ? `: ${task.lastError}` : ''}.`,
      target,
      [['Retry', CommandId.retryTask], ...(holder ? [['Show Log', CommandId.showLog] as [string, string]] : [])],
      'error',
    );
  }

  private once(kind: Kind, taskId: string, attempt: number, state: string): boolean {
    if (!this.enabled()[kind]) return false;
    const key = `${kind}:${taskId}:${attempt}:${state}`;
    if (this.shown.has(key)) return false;
    this.shown.add(key);
    return true;
  }

  private async ask(
    message: string,
    target: unknown,
    actions: Array<[label: string, command: string]>,
    level: 'info' | 'warning' | 'error' = 'info',
  ): Promise<void> {
    const show =
      level === 'error'
        ? vscode.window.showErrorMessage
        : level === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    const picked = await show(message, ...actions.map(([label]) => label));
    const command = actions.find(([label]) => label === picked)?.[1];
    if (command) await vscode.commands.executeCommand(command, target);
  }
}
