import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { workerRules } from '../../core/actions';
import { readConfiguration } from '../configuration';
import { changeSides } from './changeSides';
import { TranscriptProvider, existingEventsFile, transcriptScheme, transcriptUri } from './agentLog';
import { CommandId } from './commandIds';
import { type CommandTarget, pickWorker } from './pickers';
import type { SessionRegistry } from '../sessionRegistry';
import { taskNameWithId, taskTitles } from '../taskNames';
import { changedFiles, reviewRef } from '../../host/infraParts';
import type { ReviewScope } from '../review/reviewComments';

/**
 * `foreman-ref:<path in the worktree>?root=…&ref=…&file=<path in the repository>`: a file's text at a
 * git ref, for the diff's left side. The URI's path is the modified side's, so VS Code pairs the two
 * sides as one file (a different path reads as a rename).
 */
export const refScheme = 'foreman-ref';

export class RefContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly registry: SessionRegistry) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const session = this.registry.get(query.get('root') ?? '');
    if (!session) return '';
    const file = query.get('file');
    return file ? session.fileAt(query.get('ref') ?? 'HEAD', file) : '';
  }
}

/** Commands that open things: the diff of a worker's branch, its worktree, a terminal, its log. */
/** `onShowChanges`: the line-comment review learns which task's files are shown (src/extension/review). */
export function registerWorkspaceCommands(registry: SessionRegistry, onShowChanges?: (scope: ReviewScope) => void): vscode.Disposable[] {
  const transcripts = new TranscriptProvider(registry);
  return [
    vscode.workspace.registerTextDocumentContentProvider(refScheme, new RefContentProvider(registry)),
    transcripts,
    vscode.workspace.registerTextDocumentContentProvider(transcriptScheme, transcripts),
    vscode.commands.registerCommand(CommandId.showChanges, async (target: CommandTarget) => {
      const picked = await pickWorker(registry, target, workerRules.holdsTask, vscode.l10n.t('Show changes: pick a worker'), 'take');
      const branch = picked?.worker.branch;
      if (!picked || !branch) return;
      const { session, worker } = picked;
      const base = session.snapshot().baseBranch ?? 'main';
      // With a shared remote, a branch worked on another machine is fetched from there (issue 14).
      const remote = readConfiguration(vscode.Uri.file(session.root), () => undefined).remote || undefined;
      const branchRef = await reviewRef(session.root, branch, remote);
      const listed = branchRef.ok ? await changedFiles(session.root, base, branch, remote ? { remote } : {}) : branchRef;
      if (!listed.ok) {
        void vscode.window.showErrorMessage(
          vscode.l10n.t('Foreman: cannot list the changes of {0} against {1}: {2}', branch, base, listed.message),
        );
        return;
      }
      if (listed.value.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('{0} has no changes against {1} yet.', branch, base));
        return;
      }
      const atRef = (ref: string, side: { path: string; file: string }) =>
        vscode.Uri.from({
          scheme: refScheme,
          path: side.path,
          query: new URLSearchParams({ root: session.root, ref, file: side.file }).toString(),
        });
      const worktree = session.worktreePath(worker.id);
      // No worktree here (the worker runs on another machine): the modified side is the branch's commit.
      const modifiedSide = (file: string) =>
        fs.existsSync(worktree) || !branchRef.ok
          ? vscode.Uri.file(file)
          : atRef(branchRef.value, { path: file, file: path.relative(worktree, file).split(path.sep).join('/') });
      const sides = changeSides(listed.value, worktree);
      // Comments go on the worktree's files; a branch read from its commit has none to anchor them.
      if (worker.taskId && fs.existsSync(worktree)) {
        const files = sides.flatMap((side) => (side.modified ? [side.modified] : []));
        onShowChanges?.({ session, taskId: worker.taskId, workerId: worker.id, worktree, files });
      }
      const resources = sides.map(
        (sides) =>
          [
            vscode.Uri.file(sides.label),
            sides.original ? atRef(base, sides.original) : undefined,
            sides.modified ? modifiedSide(sides.modified) : undefined,
          ] as const,
      );
      await vscode.commands.executeCommand('vscode.changes', `${branch} ↔ ${base}`, resources);
    }),
    vscode.commands.registerCommand(CommandId.openWorktree, async (target: CommandTarget) => {
      const picked = await pickWorker(registry, target, workerRules.any, vscode.l10n.t('Open worktree: pick a worker'), 'take');
      if (!picked) return;
      const folder = picked.session.worktreePath(picked.worker.id);
      if (!fs.existsSync(folder)) {
        void vscode.window.showWarningMessage(
          vscode.l10n.t('{0} has no worktree yet; it is created when the worker starts a task.', picked.worker.id),
        );
        return;
      }
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(folder), { forceNewWindow: true });
    }),
    vscode.commands.registerCommand(CommandId.openTerminal, async (target: CommandTarget) => {
      const picked = await pickWorker(registry, target, workerRules.any, vscode.l10n.t('Open terminal: pick a worker'), 'take');
      if (!picked) return;
      const cwd = picked.session.worktreePath(picked.worker.id);
      if (!fs.existsSync(cwd)) {
        void vscode.window.showWarningMessage(vscode.l10n.t('{0} has no worktree yet.', picked.worker.id));
        return;
      }
      vscode.window
        .createTerminal({ name: vscode.l10n.t('Foreman: {0}', picked.worker.id), cwd, iconPath: new vscode.ThemeIcon('robot') })
        .show();
    }),
    vscode.commands.registerCommand(CommandId.showLog, async (target: CommandTarget) => {
      const picked = await pickWorker(registry, target, workerRules.holdsTask, vscode.l10n.t('Show log: pick a worker'), 'take');
      if (!picked?.worker.taskId) return;
      const { session, worker } = picked;
      const taskId = picked.worker.taskId;
      // The transcript reads better than the raw output; agents without events (plain commands) have only the raw log.
      if (existingEventsFile(session, taskId, worker.attempt)) {
        await vscode.window.showTextDocument(transcriptUri(session, taskId, worker.attempt), { preview: true });
        return;
      }
      const file = session.logFile(taskId, worker.attempt);
      if (!fs.existsSync(file)) {
        const name = taskNameWithId(taskTitles(session.snapshot()), taskId);
        void vscode.window.showInformationMessage(vscode.l10n.t('No agent log yet for {0}, attempt {1}.', name, worker.attempt));
        return;
      }
      await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
    }),
  ];
}
