import * as vscode from 'vscode';
import { taskFits, taskRules, workerRules } from '../../core/actions';
import { CommandId } from './commandIds';
import { type CommandTarget, askValidated, pickSession, pickTask, pickWorker, send } from './pickers';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';

/** Commands on workers and tasks: assign, start, review, merge, cancel, retry. */
export function registerWorkerCommands(registry: SessionRegistry): vscode.Disposable[] {
  const register = (id: string, run: (target: CommandTarget) => Promise<unknown>) => vscode.commands.registerCommand(id, run);
  return [
    register(CommandId.assign, async (target) => {
      const session = target && 'session' in target ? target.session : await pickSession(registry);
      if (!session) return;
      const fromTask = target?.kind === 'task' ? target.task : undefined;
      const picked =
        target?.kind === 'worker'
          ? { worker: target.worker }
          : await pickWorker(
              registry,
              undefined,
              workerRules.assign,
              fromTask ? vscode.l10n.t('Assign "{0}" to…', fromTask.title) : vscode.l10n.t('Assign: pick an idle worker'),
            );
      if (!picked) return;
      const task =
        fromTask ?? (await pickTask(session, undefined, taskRules.assign, vscode.l10n.t('Assign to {0}: pick a task', picked.worker.id)));
      if (!task) return;
      await send(
        session,
        { command: 'assign', args: { worker: picked.worker.id, task: task.id } },
        vscode.l10n.t('Assigned {0} to {1}', task.id, picked.worker.id),
      );
    }),
    register(CommandId.start, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.start, vscode.l10n.t('Start: pick an assigned worker'));
      if (picked)
        await send(
          picked.session,
          { command: 'start', args: { worker: picked.worker.id } },
          vscode.l10n.t('{0} started', picked.worker.id),
        );
    }),
    register(CommandId.approve, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.approve, vscode.l10n.t('Approve: pick a worker in review'));
      if (picked)
        await send(
          picked.session,
          { command: 'approve', args: { worker: picked.worker.id } },
          vscode.l10n.t('Approved {0}', picked.worker.taskId ?? picked.worker.id),
        );
    }),
    register(CommandId.requestChanges, async (target) => {
      const picked = await pickWorker(
        registry,
        target,
        workerRules.requestChanges,
        vscode.l10n.t('Request changes: pick a worker in review'),
      );
      if (!picked) return;
      const note = await askValidated({
        title: vscode.l10n.t('Request changes from {0}', picked.worker.id),
        prompt: vscode.l10n.t('What should change? The agent gets this note with its prompt.'),
        rule: 'note',
      });
      if (note)
        await send(
          picked.session,
          { command: 'request-changes', args: { worker: picked.worker.id, note } },
          vscode.l10n.t('Sent back to {0}', picked.worker.id),
        );
    }),
    register(CommandId.merge, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.merge, vscode.l10n.t('Merge: pick an approved worker'));
      if (!picked) return;
      const { session, worker } = picked;
      const result = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Foreman: merging {0}', worker.branch ?? worker.id),
          cancellable: false,
        },
        async (progress) => {
          progress.report({ message: vscode.l10n.t('rebasing onto the base and fast-forwarding…') });
          return session.execute({ command: 'merge', args: { worker: worker.id }, actor: 'vscode' });
        },
      );
      if (result.ok) {
        const report = result.value.merged;
        void vscode.window.showInformationMessage(
          report
            ? vscode.l10n.t(
                'Foreman: merged "{0}" from {1} into {2}; {2} is now at {3}.',
                report.title,
                report.branch,
                report.base,
                report.baseAfter.slice(0, 7),
              )
            : vscode.l10n.t('Foreman: merged {0}.', worker.branch ?? worker.id),
        );
        return;
      }
      const files = Array.isArray(result.details?.['files']) ? (result.details['files'] as string[]) : [];
      const showLog = vscode.l10n.t('Show Log');
      const action = await vscode.window.showWarningMessage(
        files.length
          ? vscode.l10n.t('Foreman: {0} Files: {1}', result.message, files.join(', '))
          : vscode.l10n.t('Foreman: {0}', result.message),
        ...(result.code === 'mergeConflict' ? [showLog] : []),
      );
      if (action === showLog) await vscode.commands.executeCommand(CommandId.showLog, target);
    }),
    register(CommandId.cancel, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.cancel, vscode.l10n.t('Cancel: pick a busy worker'));
      if (!picked) return;
      const confirm = await vscode.window.showWarningMessage(
        vscode.l10n.t('Cancel {0} on {1}?', picked.worker.taskId ?? vscode.l10n.t('the task'), picked.worker.id),
        {
          modal: true,
          detail: vscode.l10n.t('The agent is stopped and the task is cancelled. Uncommitted work is saved to a wip ref first.'),
        },
        vscode.l10n.t('Cancel Task'),
      );
      if (confirm)
        await send(
          picked.session,
          { command: 'cancel', args: { target: picked.worker.id } },
          vscode.l10n.t('Cancelled on {0}', picked.worker.id),
        );
    }),
    register(CommandId.reset, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.reset, vscode.l10n.t('Reset: pick a failed worker'));
      if (picked)
        await send(
          picked.session,
          { command: 'reset', args: { worker: picked.worker.id } },
          vscode.l10n.t('{0} is idle again', picked.worker.id),
        );
    }),
    register(CommandId.retryTask, async (target) => {
      const session = target && 'session' in target ? target.session : await pickSession(registry);
      if (!session) return;
      const lastFailed = target?.kind === 'worker' && !target.worker.taskId ? target.worker.lastTaskFailed : undefined;
      if (target?.kind === 'worker' && lastFailed) return rerunOn(session, target.worker.id, lastFailed.taskId);
      const fromWorker = target?.kind === 'worker' ? target.worker.taskId : undefined;
      const task = fromWorker
        ? { id: fromWorker }
        : await pickTask(session, target, taskRules.retry, vscode.l10n.t('Retry: pick a failed task'));
      if (task) await send(session, { command: 'retry', args: { task: task.id } }, vscode.l10n.t('{0} queued again', task.id));
    }),
    register(CommandId.cancelTask, async (target) => {
      const session = target && 'session' in target ? target.session : await pickSession(registry);
      if (!session) return;
      const task = await pickTask(session, target, taskRules.cancel, vscode.l10n.t('Cancel: pick a task'));
      if (task) await send(session, { command: 'cancel', args: { target: task.id } }, vscode.l10n.t('{0} cancelled', task.id));
    }),
  ];
}

/**
 * Runs a failed manual task again on the free worker that failed it: the queue never hands a
 * manual task out by itself, so Retry assigns it, after queueing it again if it failed for good.
 */
async function rerunOn(session: ForemanSession, workerId: string, taskId: string): Promise<void> {
  const status = session.snapshot().tasks.find((task) => task.id === taskId)?.status;
  if (status !== undefined && taskFits('retry', status)) {
    const queued = await send(session, { command: 'retry', args: { task: taskId } });
    if (!queued.ok) return;
  }
  await send(
    session,
    { command: 'assign', args: { worker: workerId, task: taskId } },
    vscode.l10n.t('{0} runs again on {1}', taskId, workerId),
  );
}
