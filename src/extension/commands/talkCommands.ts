import * as vscode from 'vscode';
import { workerRules } from '../../core/actions';
import type { SessionRegistry } from '../sessionRegistry';
import { CommandId } from './commandIds';
import { type CommandTarget, pickWorker, send } from './pickers';

/** The longest message the engine takes (requests.ts `tell`). */
const maxMessageLength = 10_000;

/**
 * Send Message and Interrupt: a person talking to a WORKING worker's running agent. Claude Code
 * takes the message mid-run on its stdin; an interrupt ends its turn, keeping the session, and it
 * then waits for a message. Sent through the session, so a read-only window routes them to the
 * owner, which runs the agent; the engine's refusal (Codex, an agent in a terminal) is shown as is.
 */
export function registerTalkCommands(registry: SessionRegistry): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(CommandId.sendMessage, (target: CommandTarget) => sendMessage(registry, target)),
    vscode.commands.registerCommand(CommandId.interruptAgent, (target: CommandTarget) => interrupt(registry, target)),
  ];
}

export async function sendMessage(registry: SessionRegistry, target: CommandTarget, given?: string): Promise<void> {
  const picked = await pickWorker(registry, target, workerRules.talk, vscode.l10n.t('Send Message: pick a working agent'));
  if (!picked) return;
  const text =
    given ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t("Message to {0}'s agent", picked.worker.id),
      prompt: vscode.l10n.t('It reaches the agent now, mid-run ({0}).', picked.worker.taskId ?? vscode.l10n.t('its task')),
      ignoreFocusOut: true,
      validateInput: (value) =>
        !value.trim()
          ? { message: vscode.l10n.t('a message must not be empty'), severity: vscode.InputBoxValidationSeverity.Error }
          : value.length > maxMessageLength
            ? {
                message: vscode.l10n.t('a message is at most {0} characters', maxMessageLength),
                severity: vscode.InputBoxValidationSeverity.Error,
              }
            : undefined,
    }));
  if (!text?.trim()) return;
  await send(picked.session, { command: 'tell', args: { worker: picked.worker.id, text } }, vscode.l10n.t('Sent to {0}', picked.worker.id));
}

async function interrupt(registry: SessionRegistry, target: CommandTarget): Promise<void> {
  const picked = await pickWorker(registry, target, workerRules.talk, vscode.l10n.t('Interrupt: pick a working agent'));
  if (!picked) return;
  await send(
    picked.session,
    { command: 'interrupt', args: { worker: picked.worker.id } },
    vscode.l10n.t('Interrupted {0}: it waits for your message', picked.worker.id),
  );
}
