import * as vscode from 'vscode';
import { RunOnceScheduler } from '../base/async';
import type { EngineEvent } from '../engine/unit';
import type { WorkerStatus } from '../engine/statusView';
import { CommandId } from './commands/commandIds';
import type { ForemanConfiguration } from './configuration';
import type { NoticeLedger } from './noticeLedger';
import type { ForemanSession } from './session';
import { SnapshotChanges, type StateChange } from './snapshotChanges';
import { failedText, taskName, taskTitles } from './taskNames';
import { WaitingWorkers, waitEnded } from './waitingWorkers';

/** Which notifications are on: the `foreman.notifications.*` settings. */
export type NotificationSwitches = ForemanConfiguration['notifications'];
type Kind = keyof NotificationSwitches;

/** Snapshot changes come in bursts; the waits are looked at once the burst settles. */
const waitCheckDelayMs = 250;

/** Actions that change state: by the time a person clicks one, the state may have moved on. */
const changesState = new Set<string>([CommandId.approve, CommandId.cancel, CommandId.retryTask, CommandId.allowInput, CommandId.denyInput]);

/**
 * Notifications only where a person is needed (ARCHITECTURE §9): an agent waits for an answer, a
 * review is ready, a worker went STALE, a task failed for good. Each is shown once per (task,
 * attempt, state), a wait once per (worker, attempt, message), and each kind can be turned off in
 * the settings. "Once" is per workspace, not per window: the ledger gives each notice to the first
 * window that claims it, and the others stay quiet.
 */
export class Notifier {
  private readonly shown = new Set<string>();
  private readonly waiting = new WaitingWorkers();

  constructor(
    private readonly session: ForemanSession,
    private readonly enabled: () => NotificationSwitches,
    private readonly ledger: Pick<NoticeLedger, 'claim'>,
  ) {}

  /**
   * Follows the session's snapshots for agents that start waiting for a person: they change no
   * state, so no engine event announces them. The returned disposable stops following.
   */
  watchWaiting(): vscode.Disposable {
    const check = new RunOnceScheduler(() => this.checkWaiting(), waitCheckDelayMs);
    const subscription = this.session.onDidChange(() => {
      // The first change of a burst sets the check; the rest ride along with it.
      if (!check.isScheduled) check.schedule();
    });
    return new vscode.Disposable(() => {
      subscription.dispose();
      check.dispose();
    });
  }

  private checkWaiting(): void {
    // Marked seen even when switched off, so turning the setting on does not replay old waits.
    const fresh = this.waiting.newlyWaiting(this.session.snapshot().workers);
    if (!this.enabled().needsInput) return;
    for (const worker of fresh) {
      if (!this.ledger.claim(`needsInput:${JSON.stringify([worker.id, worker.taskId, worker.attempt, worker.needsInput?.message])}`))
        continue;
      const question = worker.needsInput?.message ?? '';
      void this.ask(
        worker.taskId
          ? vscode.l10n.t('Foreman: {0} is waiting for you on "{1}": {2}', worker.id, this.taskName(worker.taskId), question)
          : vscode.l10n.t('Foreman: {0} is waiting for you: {1}', worker.id, question),
        { kind: 'worker' as const, session: this.session, worker },
        [
          [vscode.l10n.t('Allow'), CommandId.allowInput],
          [vscode.l10n.t('Deny'), CommandId.denyInput],
          [vscode.l10n.t('Show Agent Log'), CommandId.showLog],
        ],
        'info',
        () => waitEnded(worker, this.current(worker.id), vscode.l10n),
      );
    }
  }

  /** The task as people read it: its title (the id only when the title is unknown). */
  private taskName(taskId: string): string {
    return taskName(taskTitles(this.session.snapshot()), taskId);
  }

  private current(workerId: string): WorkerStatus | undefined {
    return this.session.snapshot().workers.find((worker) => worker.id === workerId);
  }

  /** The owner window: the engine's own events say what changed. */
  onEvents(events: readonly EngineEvent[]): void {
    for (const event of events) if (event.kind === 'worker' || event.kind === 'task') this.changed(event);
  }

  /**
   * A read-only window has no engine events: it compares the snapshots it reads from the owner, so
   * a person looking at it (the owner may be a window nobody sees) still hears of a review, a STALE
   * worker or a task that failed for good. It starts from an empty state, so its first read also
   * announces what already waits for a person. The returned disposable stops following.
   */
  watchSnapshots(): vscode.Disposable {
    const changes = new SnapshotChanges();
    changes.next(this.session.snapshot());
    return this.session.onDidChange(() => changes.next(this.session.snapshot()).forEach((change) => this.changed(change)));
  }

  private changed(change: StateChange): void {
    if (change.kind === 'worker' && change.to === 'IN_REVIEW') this.worker(change.id, 'reviewReady');
    else if (change.kind === 'worker' && change.to === 'STALE') this.worker(change.id, 'stale');
    else if (change.kind === 'task' && change.to === 'failed') this.failed(change.id);
  }

  private worker(workerId: string, kind: Kind): void {
    const worker = this.session.snapshot().workers.find((w) => w.id === workerId);
    if (!worker?.taskId || !this.once(kind, worker.taskId, worker.attempt, worker.state)) return;
    const target = { kind: 'worker' as const, session: this.session, worker };
    const moved = () => {
      const now = this.session.snapshot().workers.find((w) => w.id === workerId);
      const same = now && now.state === worker.state && now.taskId === worker.taskId && now.attempt === worker.attempt;
      if (same) return undefined;
      if (!now) return vscode.l10n.t('{0} is gone now', worker.id);
      return now.taskId
        ? vscode.l10n.t('{0} is {1} on "{2}" now', worker.id, now.state, this.taskName(now.taskId))
        : vscode.l10n.t('{0} is {1} now', worker.id, now.state);
    };
    if (kind === 'reviewReady') {
      void this.ask(
        vscode.l10n.t('Foreman: "{0}" is ready for review ({1}).', this.taskName(worker.taskId), worker.id),
        target,
        [
          [vscode.l10n.t('Review'), CommandId.showChanges],
          [vscode.l10n.t('Approve'), CommandId.approve],
          [vscode.l10n.t('Show Log'), CommandId.showLog],
        ],
        'info',
        moved,
      );
    } else {
      void this.ask(
        vscode.l10n.t('Foreman: {0} went STALE on "{1}": {2}.', worker.id, this.taskName(worker.taskId), worker.livenessReason),
        target,
        [
          [vscode.l10n.t('Show Log'), CommandId.showLog],
          [vscode.l10n.t('Cancel Task'), CommandId.cancel],
        ],
        'warning',
        moved,
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
      failedText(this.taskName(task.id), task, vscode.l10n),
      target,
      [
        [vscode.l10n.t('Retry'), CommandId.retryTask],
        ...(holder ? [[vscode.l10n.t('Show Log'), CommandId.showLog] as [string, string]] : []),
      ],
      'error',
      () => {
        const now = this.session.snapshot().tasks.find((t) => t.id === taskId);
        if (now?.status === 'failed' && now.attempt === task.attempt) return undefined;
        return now
          ? vscode.l10n.t('"{0}" is {1} now', this.taskName(task.id), now.status)
          : vscode.l10n.t('"{0}" is gone now', this.taskName(task.id));
      },
    );
  }

  private once(kind: Kind, taskId: string, attempt: number, state: string): boolean {
    if (!this.enabled()[kind]) return false;
    const key = `${kind}:${taskId}:${attempt}:${state}`;
    if (this.shown.has(key)) return false;
    this.shown.add(key);
    return this.ledger.claim(key);
  }

  private async ask(
    message: string,
    target: unknown,
    actions: Array<[label: string, command: string]>,
    level: 'info' | 'warning' | 'error' = 'info',
    /** Why the notification no longer holds, or undefined while it does. */
    moved: () => string | undefined = () => undefined,
  ): Promise<void> {
    const show =
      level === 'error'
        ? vscode.window.showErrorMessage
        : level === 'warning'
          ? vscode.window.showWarningMessage
          : vscode.window.showInformationMessage;
    const picked = await show(message, ...actions.map(([label]) => label));
    const command = actions.find(([label]) => label === picked)?.[1];
    if (!command) return;
    const stale = changesState.has(command) ? moved() : undefined;
    if (stale) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Foreman: {0}; "{1}" was not applied.', stale, picked ?? ''));
      return;
    }
    await vscode.commands.executeCommand(command, target);
  }
}
