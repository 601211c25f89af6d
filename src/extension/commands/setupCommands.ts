import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseChainJson, parseChecklist } from '../../core/checklist';
import { agentChoices } from './agentChoices';
import { registerNewTaskCommands } from './newTask';
import { CommandId } from './commandIds';
import { type CommandTarget, askValidated, pickSession, send } from './pickers';
import type { SessionRegistry } from '../sessionRegistry';
import type { ProfileAvailability } from '../../host/infraParts';

export interface SetupDeps {
  readonly registry: SessionRegistry;
  /** Creates `.foreman/` in a folder and opens its session. */
  initialise(folder: vscode.WorkspaceFolder): Promise<void>;
  /** Every known agent profile and whether its command is found, looked up from `cwd`. */
  agentProfiles(cwd: string): ProfileAvailability[];
}

/** Commands that create things: initialise, workers, tasks, chains; and the view helpers. */
export function registerSetupCommands(deps: SetupDeps): vscode.Disposable[] {
  const { registry } = deps;
  return [
    vscode.commands.registerCommand(CommandId.initialise, async () => {
      const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => !registry.get(folder.uri.fsPath));
      if (folders.length === 0) {
        void vscode.window.showInformationMessage(
          vscode.workspace.workspaceFolders?.length
            ? vscode.l10n.t('Foreman is already initialised in every folder.')
            : vscode.l10n.t('Open a folder with a git repository first.'),
        );
        return;
      }
      const folder =
        folders.length === 1
          ? folders[0]
          : (
              await vscode.window.showQuickPick(
                folders.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })),
                { title: vscode.l10n.t('Initialise Foreman in…') },
              )
            )?.folder;
      if (!folder) return;
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Foreman: initialising {0}', folder.name) },
        () => deps.initialise(folder),
      );
    }),
    vscode.commands.registerCommand(CommandId.addWorker, async () => {
      const session = await pickSession(registry);
      if (!session) return;
      // Read at each keystroke and again after the picker: another window or the CLI may add one meanwhile.
      const takenNow = () => new Set(session.snapshot().workers.map((w) => w.id));
      const id = await askValidated({
        title: vscode.l10n.t('Foreman: Add Worker'),
        prompt: vscode.l10n.t('Worker id: lowercase letters, digits and dashes'),
        placeHolder: vscode.l10n.t('e.g. worker-1'),
        value: nextWorkerId(takenNow()),
        rule: 'workerId',
        refuse: (text) => (takenNow().has(text) ? duplicateWorker(text, session.name) : undefined),
      });
      if (!id) return;
      const picked = await vscode.window.showQuickPick(agentChoices(deps.agentProfiles(session.root), vscode.l10n), {
        title: vscode.l10n.t('Agent for {0}', id),
        placeHolder: vscode.l10n.t("Which agent runs this worker's tasks?"),
      });
      if (!picked) return;
      if (takenNow().has(id)) {
        void vscode.window.showErrorMessage(
          vscode.l10n.t('Foreman: {0} Nothing was added; run Add Worker again.', duplicateWorker(id, session.name)),
        );
        return;
      }
      const added = await send(
        session,
        { command: 'worker.add', args: { id, agent: picked.profile } },
        vscode.l10n.t('Worker {0} added', id),
      );
      if (added.ok && !picked.runnable)
        void vscode.window.showWarningMessage(vscode.l10n.t('Foreman: {0} was added, but {1}', id, picked.detail ?? ''));
    }),
    ...registerNewTaskCommands(registry),
    vscode.commands.registerCommand(CommandId.newChain, async (uri?: vscode.Uri) => {
      const session = await pickSession(registry);
      if (!session) return;
      const document = await chainDocument(uri);
      if (!document) return;
      const text = document.getText();
      const parsed = document.fileName.endsWith('.json') ? parseChainJson(text) : parseChecklist(text);
      if (!parsed.ok) {
        void vscode.window.showErrorMessage(vscode.l10n.t('Foreman: {0}: {1}', path.basename(document.fileName), parsed.message));
        return;
      }
      const name = await askValidated({
        title: vscode.l10n.t('New chain of {0} tasks', parsed.value.steps.length),
        prompt: vscode.l10n.t('Chain name'),
        value: parsed.value.name ?? path.basename(document.fileName).replace(/\.\w+$/, ''),
        rule: 'title',
      });
      if (!name) return;
      const added = await send(session, { command: 'chain.add', args: { name, steps: parsed.value.steps } });
      if (added.ok) void chainAdded(name, parsed.value.steps.length);
    }),
    vscode.commands.registerCommand(CommandId.exportLogs, async () => {
      const session = await pickSession(registry);
      if (!session) return;
      const result = await send(session, { command: 'export', args: {} });
      if (!result.ok) return;
      const file = vscode.Uri.file(path.join(session.root, '.foreman', 'transitions.jsonl'));
      const action = await vscode.window.showInformationMessage(
        vscode.l10n.t('Foreman: exported to .foreman/transitions.jsonl and .foreman/bus.jsonl.'),
        vscode.l10n.t('Open Transitions'),
      );
      if (action) await vscode.window.showTextDocument(file);
    }),
    vscode.commands.registerCommand(CommandId.showWorkers, () => vscode.commands.executeCommand('foreman.workers.focus')),
    vscode.commands.registerCommand(CommandId.refresh, (_target: CommandTarget) => {
      for (const session of registry.sessions()) session.refresh();
    }),
  ];
}

async function chainDocument(uri: vscode.Uri | undefined): Promise<vscode.TextDocument | undefined> {
  if (uri) return vscode.workspace.openTextDocument(uri);
  const active = vscode.window.activeTextEditor?.document;
  if (active && (active.languageId === 'markdown' || active.fileName.endsWith('.json'))) return active;
  const [picked] =
    (await vscode.window.showOpenDialog({
      title: vscode.l10n.t('A markdown checklist or a JSON chain'),
      filters: { [vscode.l10n.t('Chains')]: ['md', 'markdown', 'json'] },
      canSelectMany: false,
    })) ?? [];
  return picked && vscode.workspace.openTextDocument(picked);
}

/** Why an id cannot be a new worker's: one by that name exists. */
function duplicateWorker(id: string, folder: string): string {
  return vscode.l10n.t("A worker named '{0}' already exists in {1}; choose another id.", id, folder);
}

/** A chain is several tasks at once: a toast says they were queued, and shows them on request. */
async function chainAdded(name: string, steps: number): Promise<void> {
  const shown = await vscode.window.showInformationMessage(
    steps === 1
      ? vscode.l10n.t('Foreman: chain "{0}" queued: 1 task, each after the one before.', name)
      : vscode.l10n.t('Foreman: chain "{0}" queued: {1} tasks, each after the one before.', name, steps),
    vscode.l10n.t('Show Queue'),
  );
  if (shown) await vscode.commands.executeCommand('foreman.queue.focus');
}

function nextWorkerId(taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) if (!taken.has(`worker-${n}`)) return `worker-${n}`;
}
