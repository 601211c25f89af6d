import * as vscode from 'vscode';
import type { WorkerStatus } from '../../engine/statusView';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';
import { waitEnded } from '../waitingWorkers';
import { CommandId } from './commandIds';
import { type CommandTarget, send } from './pickers';

type Decision = 'allow' | 'deny';

/** Whole sentences per decision: a translation may order the words differently. */
const wording: Readonly<
  Record<Decision, { pick(): string; notDone(why: string): string; done(worker: string, question: string): string }>
> = {
  allow: {
    pick: () => vscode.l10n.t('Allow: pick a waiting agent'),
    notDone: (why) => vscode.l10n.t('Foreman: {0}; nothing was allowed.', why),
    done: (worker, question) => vscode.l10n.t('Allowed {0}: {1}', worker, question),
  },
  deny: {
    pick: () => vscode.l10n.t('Deny: pick a waiting agent'),
    notDone: (why) => vscode.l10n.t('Foreman: {0}; nothing was denied.', why),
    done: (worker, question) => vscode.l10n.t('Denied {0}: {1}', worker, question),
  },
};

/**
 * Allow and Deny: the answer to an agent that waits for a person (a tool call outside its
 * allow-list). Sent through the session, so a read-only window routes it to the owner like any
 * other command; the engine hands it to the waiting hook, which lets the tool run or refuses it.
 */
export function registerAnswerCommands(registry: SessionRegistry): vscode.Disposable[] {
  return (['allow', 'deny'] as const).map((decision) =>
    vscode.commands.registerCommand(decision === 'allow' ? CommandId.allowInput : CommandId.denyInput, (target: CommandTarget) =>
      answer(registry, target, decision),
    ),
  );
}

async function answer(registry: SessionRegistry, target: CommandTarget, decision: Decision): Promise<void> {
  const picked = target?.kind === 'worker' ? target : await pickWaiting(registry, wording[decision].pick());
  if (!picked) return;
  // The row, card or notification may show an older state than the engine's: an answer is only
  // sent for the very question the person saw.
  const current = picked.session.snapshot().workers.find((worker) => worker.id === picked.worker.id);
  const ended = waitEnded(picked.worker, current, vscode.l10n);
  if (ended) {
    void vscode.window.showInformationMessage(wording[decision].notDone(ended));
    return;
  }
  const question = current?.needsInput?.message ?? '';
  await send(
    picked.session,
    { command: 'answer', args: { worker: picked.worker.id, decision } },
    wording[decision].done(picked.worker.id, question),
  );
}

/** A quick pick of the agents that wait for a person, across every Foreman folder of the window. */
async function pickWaiting(
  registry: SessionRegistry,
  title: string,
): Promise<{ session: ForemanSession; worker: WorkerStatus } | undefined> {
  const sessions = registry.sessions();
  const waiting = sessions.flatMap((session) =>
    session
      .snapshot()
      .workers.filter((worker) => worker.needsInput)
      .map((worker) => ({ session, worker })),
  );
  if (waiting.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Foreman: no agent is waiting for you.'));
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    waiting.map(({ session, worker }) => ({
      label: worker.id,
      description: [worker.taskId, sessions.length > 1 ? session.name : undefined].filter(Boolean).join(' · '),
      detail: vscode.l10n.t('waiting for you: {0}', worker.needsInput?.message ?? ''),
      session,
      worker,
    })),
    { title, placeHolder: vscode.l10n.t('Pick an agent to answer'), matchOnDetail: true },
  );
  return picked && { session: picked.session, worker: picked.worker };
}
