import * as vscode from 'vscode';
import { type ActionName } from '../../shared/protocol';
import { CommandId } from '../commands/commandIds';
import { send } from '../commands/pickers';
import type { ActionOutcome, ResolvedAction } from './dashboardHost';

/** The command each dashboard action runs; targets are the same nodes the tree views pass. */
const commandOf: Readonly<Record<ActionName, string>> = {
  assign: CommandId.assign,
  start: CommandId.start,
  approve: CommandId.approve,
  requestChanges: CommandId.requestChanges,
  merge: CommandId.merge,
  cancel: CommandId.cancel,
  reset: CommandId.reset,
  retry: CommandId.retryTask,
  cancelTask: CommandId.cancelTask,
  showChanges: CommandId.showChanges,
  showLog: CommandId.showLog,
  openTerminal: CommandId.openTerminal,
  addWorker: CommandId.addWorker,
  newTask: CommandId.newTask,
  newChain: CommandId.newChain,
  allow: CommandId.allowInput,
  deny: CommandId.denyInput,
  sendMessage: CommandId.sendMessage,
  interrupt: CommandId.interruptAgent,
  overlapRunAfter: CommandId.overlapRunAfter,
  overlapRebaseWhenMerged: CommandId.overlapRebaseWhenMerged,
  overlapIgnore: CommandId.overlapIgnore,
};

/**
 * Runs a checked dashboard action as the Foreman command a menu would run, so confirmations,
 * progress and error messages are the same wherever a person clicks. Request changes with a note,
 * and Send message with its text, typed in the dashboard go straight to the engine (the command
 * would ask for the text again).
 */
export async function runDashboardAction(resolved: ResolvedAction): Promise<ActionOutcome> {
  const { action, session, target } = resolved;
  if (action === 'requestChanges' && target.kind === 'worker' && resolved.note !== undefined) {
    const result = await send(
      session,
      { command: 'request-changes', args: { worker: target.worker.id, note: resolved.note } },
      `Sent back to ${target.worker.id}`,
    );
    return result.ok ? { ok: true } : { ok: false, message: result.message };
  }
  if (action === 'sendMessage' && target.kind === 'worker' && resolved.note !== undefined) {
    const result = await send(
      session,
      { command: 'tell', args: { worker: target.worker.id, text: resolved.note } },
      `Sent to ${target.worker.id}`,
    );
    return result.ok ? { ok: true } : { ok: false, message: result.message };
  }
  // An overlap's answer names the pair: the row of the task acted on, and the other task.
  if (target.kind === 'overlap') {
    await vscode.commands.executeCommand(commandOf[action], { kind: 'task' as const, session, task: target.task }, target.other);
    return { ok: true };
  }
  const node =
    target.kind === 'worker'
      ? { kind: 'worker' as const, session, worker: target.worker }
      : target.kind === 'task'
        ? { kind: 'task' as const, session, task: target.task }
        : undefined;
  await vscode.commands.executeCommand(commandOf[action], node);
  return { ok: true };
}
