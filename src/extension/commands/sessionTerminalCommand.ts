import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { workerRules } from '../../core/actions';
import type { SessionRegistry } from '../sessionRegistry';
import { CommandId } from './commandIds';
import { type CommandTarget, pickWorker } from './pickers';
import { resolveProfile, sessionTerminal } from '../../host/infraParts';

/**
 * Open Session in Terminal: the worker's agent session (`claude --resume <id>`, `codex resume <id>`)
 * in a terminal in its worktree, for a person to continue by hand. Offered while the worker waits
 * for a review decision — its agent has ended its turn, so nothing of Foreman's runs in that
 * session meanwhile; Foreman relaunches it only on Request Changes, which a person holding the
 * terminal should send only once they are done there.
 */
export function registerSessionTerminalCommand(
  registry: SessionRegistry,
  agentProfiles: () => Readonly<Record<string, unknown>>,
): vscode.Disposable {
  return vscode.commands.registerCommand(CommandId.openSessionInTerminal, async (target: CommandTarget) => {
    const picked = await pickWorker(
      registry,
      target,
      workerRules.takeOver,
      vscode.l10n.t('Open Session in Terminal: pick a worker in review'),
    );
    if (!picked) return;
    const { session, worker } = picked;
    const worktree = session.worktreePath(worker.id);
    if (!fs.existsSync(worktree)) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Foreman: {0} has no worktree to open its session in.', worker.id));
      return;
    }
    const profile = resolveProfile(worker.agent, agentProfiles());
    const spec = sessionTerminal(worker, profile.ok ? profile.value : undefined, worktree);
    if (!spec.ok) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Foreman: {0}', spec.message));
      return;
    }
    const { name, shellPath, shellArgs, cwd, env } = spec.value;
    vscode.window
      .createTerminal({ name, shellPath, shellArgs: [...shellArgs], cwd, env: { ...env }, iconPath: new vscode.ThemeIcon('terminal') })
      .show();
  });
}
