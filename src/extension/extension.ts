import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { contributeCli } from './cli/cliOnPath';
import { registerMcpProvider } from './mcpProvider';
import { CommandId } from './commands/commandIds';
import { contextKeys } from './contextKeys';
import { registerAnswerCommands } from './commands/answerCommands';
import { registerTalkCommands } from './commands/talkCommands';
import { registerOverlapCommands } from './commands/overlapCommands';
import { registerSessionTerminalCommand } from './commands/sessionTerminalCommand';
import { registerSetupCommands } from './commands/setupCommands';
import { registerWorkerCommands } from './commands/workerCommands';
import { registerWorkspaceCommands } from './commands/workspaceCommands';
import { registerDashboard } from './dashboard';
import { registerReviewComments } from './review/reviewCommands';
import { crewSettingsOf, engineSettingsOf, readConfiguration, storeOverrideOf } from './configuration';
import { forgeTokenSource, registerSetGitLabToken } from './forgeCredentials';
import { NoticeLedger } from './noticeLedger';
import { Notifier } from './notifications';
import { SessionRegistry } from './sessionRegistry';
import { ClientSession } from './sessions/clientSession';
import { OwnerSession } from './sessions/ownerSession';
import { type HandoverRequest, grantHandover } from './sessions/handover';
import { handoverDecider, registerTakeOver, showReadOnlyNotice } from './sessions/ownership';
import { OwnershipNotices } from './sessions/ownershipNotices';
import { LivenessStatusItem } from './statusBar/livenessItem';
import { QueueTreeProvider } from './tree/queueTree';
import { VsCodeTerminalHost } from './terminalHost';
import { WorkersTreeProvider } from './tree/workersTree';
import { builtinProfiles, profileAvailability } from '../host/infraParts';
import { init as initWorkspace } from '../host/setup';
import { readOwner } from '../host/endpointAccess';

/** Settings the engine and crew take when they open; agent profiles and notifications are read live. */
const settingsAppliedAtOpen = [
  'foreman.worktreeRoot',
  'foreman.branchTemplate',
  'foreman.concurrency',
  'foreman.teamConcurrency',
  'foreman.maxAttempts',
  'foreman.heartbeat',
  'foreman.mergeStrategy',
  'foreman.verifyCommand',
  'foreman.setup',
  'foreman.allowEmptyResults',
  'foreman.remote',
  'foreman.store',
];

/**
 * The composition root (STYLE rule 6): everything is created here and handed its dependencies.
 * Activation registers the views and commands and returns; the engines open in the background so
 * the window never waits on a database or git.
 */
export function activate(context: vscode.ExtensionContext): { registry: SessionRegistry; ready: Promise<void> } {
  const output = vscode.window.createOutputChannel('Foreman', { log: true });
  const log = (line: string) => output.info(line);
  const registry = new SessionRegistry();
  const terminalHost = new VsCodeTerminalHost();
  const configuration = (folder?: vscode.WorkspaceFolder) => readConfiguration(folder?.uri, (message) => output.warn(message));
  const workers = new WorkersTreeProvider(registry);
  const queue = new QueueTreeProvider(registry);
  const workersView = vscode.window.createTreeView('foreman.workers', { treeDataProvider: workers, showCollapseAll: true });
  const queueView = vscode.window.createTreeView('foreman.queue', { treeDataProvider: queue, showCollapseAll: true });
  const ownershipNotices = new OwnershipNotices(registry);
  context.subscriptions.push(output, registry, workers, queue, workersView, queueView, new LivenessStatusItem(registry), ownershipNotices);

  /** The context keys as last set: each is sent to the window only when it changes. */
  const contextSet = new Map<string, boolean>();
  const updateContext = () => {
    const sessions = registry.sessions();
    for (const [key, value] of Object.entries(contextKeys(sessions))) {
      if (contextSet.get(key) === value) continue;
      contextSet.set(key, value);
      void vscode.commands.executeCommand('setContext', key, value);
    }
    const restricted = sessions.some((s) => s.restricted);
    // A second window is a read-only client; with one folder the tree has no folder row to say so.
    const readOnly = sessions.flatMap((s) => (s.ownerNote ? [sessions.length > 1 ? `${s.name}: ${s.ownerNote}` : s.ownerNote] : []));
    const readOnlyNote = readOnly.length
      ? vscode.l10n.t(
          '{0}. This window shows the state and sends your commands to the owner; Take Over (in the status bar) makes it the owner.',
          capitalize(readOnly.join('; ')),
        )
      : undefined;
    workersView.message = restricted
      ? vscode.l10n.t('Restricted Mode: Foreman launches no agent and runs no merge until you trust this workspace.')
      : readOnlyNote;
  };
  context.subscriptions.push(registry.onDidChange(updateContext));

  /**
   * Shows a folder read-only, routing commands to its owner; takes over when the owner goes away.
   * `yieldMs`: after handing over, leave the lock to the window that asked for a while.
   */
  const openAsClient = (folder: vscode.WorkspaceFolder, note: string, yieldMs = 0): void => {
    const root = folder.uri.fsPath;
    const takeOver = () => {
      log(vscode.l10n.t('{0}: the owner went away; this window takes over', folder.name));
      void registry.remove(root).then(() => openFolder(folder));
    };
    const worktreeRoot = configuration(folder).worktreeRoot || undefined;
    const client = new ClientSession(root, folder.name, note, worktreeRoot, takeOver, yieldMs ? Date.now() + yieldMs : 0);
    // The owner may be a window nobody sees: this one tells its person what needs them too.
    const notifier = new Notifier(client, () => configuration(folder).notifications, new NoticeLedger(path.join(root, '.foreman')));
    // The notifier's subscriptions live as long as the folder's session, not the window.
    registry.add(client, notifier.watchSnapshots(), notifier.watchWaiting());
    log(`${folder.name}: ${note}`);
  };

  /**
   * Lets the window that asked own the folder: the other read-only windows leave it the lock, and
   * this one closes its engine and shows the folder read-only.
   */
  const handOver = (folder: vscode.WorkspaceFolder, to: HandoverRequest): void => {
    log(vscode.l10n.t('{0}: handing over to another window (pid {1})', folder.name, to.pid));
    grantHandover(path.join(folder.uri.fsPath, '.foreman'), to);
    void registry
      .remove(folder.uri.fsPath)
      .then(() => openAsClient(folder, vscode.l10n.t('read-only: handed over to another window'), 30_000));
  };

  // One GitHub sign-in per window, or the stored GitLab token, for the pull-request hand-off (docs/handoff.md).
  const forgeToken = forgeTokenSource(context.secrets);
  const openFolder = async (folder: vscode.WorkspaceFolder): Promise<void> => {
    const root = folder.uri.fsPath;
    if (!fs.existsSync(path.join(root, '.foreman'))) return;
    const config = configuration(folder);
    const store = storeOverrideOf(config);
    const opened = await OwnerSession.open({
      root,
      name: folder.name,
      ...(store ? { store } : {}),
      trusted: vscode.workspace.isTrusted,
      settings: { engine: engineSettingsOf(config), crew: crewSettingsOf(config) },
      forgeToken,
      // Read at each launch: an edit of `foreman.agents` applies to the next agent without a reopen.
      agentProfiles: () => configuration(folder).agents,
      log: (line) => log(`${folder.name}: ${line}`),
      terminalHost,
      handover: {
        decide: handoverDecider(ownershipNotices, { name: folder.name, root }, (to) => handOver(folder, to)),
        onHandedOver: (to) => handOver(folder, to),
      },
      // The store goes on after a full disk (issue 10); the person should know changes are not saved meanwhile.
      onSavingChange: (problem) =>
        void (problem
          ? vscode.window.showWarningMessage(vscode.l10n.t('Foreman ({0}): {1}', folder.name, problem))
          : vscode.window.showInformationMessage(vscode.l10n.t('Foreman ({0}): changes are saved again.', folder.name))),
      // A failed fsync: nobody can say what reached the disk. The store is reopened from disk, which
      // replays what was journalled, and the person is told to look before repeating anything.
      onStoreBroken: (reason) =>
        setImmediate(() => {
          void vscode.window.showErrorMessage(
            vscode.l10n.t(
              'Foreman ({0}): saving failed ({1}), so the last changes may or may not be recorded. Foreman reopened the workspace from disk; look at the tasks before repeating anything.',
              folder.name,
              reason,
            ),
          );
          void registry.remove(root).then(() => openFolder(folder));
        }),
    });
    if (opened.ok) {
      const notifier = new Notifier(opened.value, () => configuration(folder).notifications, new NoticeLedger(path.join(root, '.foreman')));
      registry.add(
        opened.value,
        opened.value.onDidCommit((events) => notifier.onEvents(events)),
        notifier.watchWaiting(),
      );
      log(
        vscode.workspace.isTrusted
          ? vscode.l10n.t('{0}: this window owns Foreman', folder.name)
          : vscode.l10n.t('{0}: this window owns Foreman (Restricted Mode: no agents, no merges)', folder.name),
      );
    } else if (opened.code === 'ownedByOther') {
      const owner = readOwner(path.join(root, '.foreman'));
      const note = owner
        ? vscode.l10n.t(
            'read-only: owned by {0} (pid {1})',
            owner.role === 'vscode' ? vscode.l10n.t('another window') : `foreman ${owner.role}`,
            owner.pid,
          )
        : vscode.l10n.t('read-only');
      openAsClient(folder, note);
      if (owner?.role === 'vscode') showReadOnlyNotice(folder.name, root, note);
    } else {
      log(`${folder.name}: ${opened.message}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Foreman ({0}): {1}', folder.name, opened.message));
    }
  };

  /** Closes and opens every folder's engine: what a trust grant or changed settings need. */
  const reopen = async (): Promise<void> => {
    await Promise.all(
      (vscode.workspace.workspaceFolders ?? []).map(async (folder) => {
        if (!registry.get(folder.uri.fsPath)) return;
        await registry.remove(folder.uri.fsPath);
        await openFolder(folder);
      }),
    );
    updateContext();
  };

  const initialise = async (folder: vscode.WorkspaceFolder): Promise<void> => {
    const config = configuration(folder);
    const store = storeOverrideOf(config);
    const report = await initWorkspace(folder.uri.fsPath, {
      ...(config.baseBranch ? { base: config.baseBranch } : {}),
      ...(store ? { store } : {}),
    });
    if (!report.ok) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Foreman: {0}', report.message));
      return;
    }
    await openFolder(folder);
  };

  const review = registerReviewComments(context, registry, (message) => output.warn(message));
  context.subscriptions.push(
    ...review.disposables,
    ...registerSetupCommands({
      registry,
      initialise,
      agentProfiles: (cwd) => {
        const userProfiles = configuration().agents;
        const names = [...new Set([...Object.keys(builtinProfiles()), ...Object.keys(userProfiles)])];
        return names.map((name) => profileAvailability(name, userProfiles, cwd));
      },
    }),
    ...registerWorkerCommands(registry),
    ...registerAnswerCommands(registry),
    ...registerTalkCommands(registry),
    ...registerOverlapCommands(registry),
    registerSessionTerminalCommand(registry, () => configuration().agents),
    ...registerWorkspaceCommands(registry, (scope) => review.review.showing(scope)),
    registerTakeOver(registry),
    contributeCli(context),
    registerSetGitLabToken(context.secrets),
    ...registerMcpProvider(context, registry),
    ...registerDashboard(context, registry, { log }),
    vscode.workspace.onDidChangeWorkspaceFolders((change) => {
      change.removed.forEach((folder) => void registry.remove(folder.uri.fsPath));
      change.added.forEach((folder) => void openFolder(folder));
    }),
    // Trust granted: reopen the engines so agents can launch and merges run.
    vscode.workspace.onDidGrantWorkspaceTrust(() => void reopen()),
    vscode.commands.registerCommand(CommandId.reopen, () =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Foreman: reopening…') }, reopen),
    ),
    vscode.workspace.onDidChangeConfiguration((change) => {
      if (!settingsAppliedAtOpen.some((key) => change.affectsConfiguration(key)) || registry.sessions().length === 0) return;
      const message = vscode.l10n.t(
        'Foreman: the changed settings apply when Foreman reopens this workspace. Reopening stops running agents; their work is saved and their tasks retried.',
      );
      void vscode.window.showInformationMessage(message, vscode.l10n.t('Reopen Now')).then((choice) => {
        if (choice) void vscode.commands.executeCommand(CommandId.reopen);
      });
    }),
  );
  updateContext();
  const ready = Promise.all((vscode.workspace.workspaceFolders ?? []).map((folder) => openFolder(folder))).then(() => updateContext());
  return { registry, ready };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function deactivate(): void {
  // Nothing to save here: every commit is already journalled (ARCHITECTURE §2). The sessions are
  // disposed through context.subscriptions, which releases the owner lock.
}
