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
              fromTask ? `Assign "${fromTask.title}" to…` : 'Assign: pick an idle worker',
            );
      if (!picked) return;
      const task = fromTask ?? (await pickTask(session, undefined, taskRules.assign, `Assign to ${picked.worker.id}: pick a task`));
      if (!task) return;
      await send(
        session,
        { command: 'assign', args: { worker: picked.worker.id, task: task.id } },
        `Assigned ${task.id} to ${picked.worker.id}`,
      );
    }),
    register(CommandId.start, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.start, 'Start: pick an assigned worker');
      if (picked) await send(picked.session, { command: 'start', args: { worker: picked.worker.id } }, `${picked.worker.id} started`);
    }),
    register(CommandId.approve, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.approve, 'Approve: pick a worker in review');
      if (picked)
        await send(
          picked.session,
          { command: 'approve', args: { worker: picked.worker.id } },
          `Approved ${picked.worker.taskId ?? picked.worker.id}`,
        );
    }),
    register(CommandId.requestChanges, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.requestChanges, 'Request changes: pick a worker in review');
      if (!picked) return;
      const note = await askValidated({
        title: `Request changes from ${picked.worker.id}`,
        prompt: 'What should change? The agent gets this note with its prompt.',
        rule: 'note',
      });
      if (note)
        await send(
          picked.session,
          { command: 'request-changes', args: { worker: picked.worker.id, note } },
          `Sent back to ${picked.worker.id}`,
        );
    }),
    register(CommandId.merge, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.merge, 'Merge: pick an approved worker');
      if (!picked) return;
      const { session, worker } = picked;
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Foreman: merging ${worker.branch ?? worker.id}`, cancellable: false },
        async (progress) => {
          progress.report({ message: 'rebasing onto the base and fast-forwarding…' });
          return session.execute({ command: 'merge', args: { worker: worker.id }, actor: 'vscode' });
        },
      );
      if (result.ok) {
        const report = result.value.merged;
        void vscode.window.showInformationMessage(
          report
            ? `Foreman: merged "${report.title}" from ${report.branch} into ${report.base}; ${report.base} is now at ${report.baseAfter.slice(0, 7)}.`
            : `Foreman: merged ${worker.branch ?? worker.id}.`,
        );
        return;
      }
      const files = Array.isArray(result.details?.['files']) ? (result.details['files'] as string[]) : [];
      const detail = files.length ? ` Files: ${files.join(', ')}` : '';
      const action = await vscode.window.showWarningMessage(
        `Foreman: ${result.message}${detail}`,
        ...(result.code === 'mergeConflict' ? ['Show Log'] : []),
      );
      if (action === 'Show Log') await vscode.commands.executeCommand(CommandId.showLog, target);
    }),
    register(CommandId.cancel, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.cancel, 'Cancel: pick a busy worker');
      if (!picked) return;
      const confirm = await vscode.window.showWarningMessage(
        `Cancel ${picked.worker.taskId ?? 'the task'} on ${picked.worker.id}?`,
        { modal: true, detail: 'The agent is stopped and the task is cancelled. Uncommitted work is saved to a wip ref first.' },
        'Cancel Task',
      );
      if (confirm)
        await send(picked.session, { command: 'cancel', args: { target: picked.worker.id } }, `Cancelled on ${picked.worker.id}`);
    }),
    register(CommandId.reset, async (target) => {
      const picked = await pickWorker(registry, target, workerRules.reset, 'Reset: pick a failed worker');
      if (picked) await send(picked.session, { command: 'reset', args: { worker: picked.worker.id } }, `${picked.worker.id} is idle again`);
    }),
    register(CommandId.retryTask, async (target) => {
      const session = target && 'session' in target ? target.session : await pickSession(registry);
      if (!session) return;
      const lastFailed = target?.kind === 'worker' && !target.worker.taskId ? target.worker.lastTaskFailed : undefined;
      if (target?.kind === 'worker' && lastFailed) return rerunOn(session, target.worker.id, lastFailed.taskId);
      const fromWorker = target?.kind === 'worker' ? target.worker.taskId : undefined;
      const task = fromWorker ? { id: fromWorker } : await pickTask(session, target, taskRules.retry, 'Retry: pick a failed task');
      if (task) await send(session, { command: 'retry', args: { task: task.id } }, `${task.id} queued again`);
    }),
    register(CommandId.cancelTask, async (target) => {
      const session = target && 'session' in target ? target.session : await pickSession(registry);
      if (!session) return;
      const task = await pickTask(session, target, taskRules.cancel, 'Cancel: pick a task');
      if (task) await send(session, { command: 'cancel', args: { target: task.id } }, `${task.id} cancelled`);
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
  await send(session, { command: 'assign', args: { worker: workerId, task: taskId } }, `${taskId} runs again on ${workerId}`);
}
