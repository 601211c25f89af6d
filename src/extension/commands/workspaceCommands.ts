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
export function registerWorkspaceCommands(registry: SessionRegistry): vscode.Disposable[] {
  const transcripts = new TranscriptProvider(registry);
  return [
    vscode.workspace.registerTextDocumentContentProvider(refScheme, new RefContentProvider(registry)),
    transcripts,
    vscode.workspace.registerTextDocumentContentProvider(transcriptScheme, transcripts),
    vscode.commands.registerCommand(CommandId.showChanges, async (target: CommandTarget) => {
      const picked = await pickWorker(registry, target, workerRules.holdsTask, 'Show changes: pick a worker', 'take');
      const branch = picked?.worker.branch;
      if (!picked || !branch) return;
      const { session, worker } = picked;
      const base = session.snapshot().baseBranch ?? 'main';
      // With a shared remote, a branch worked on another machine is fetched from there (issue 14).
      const remote = readConfiguration(vscode.Uri.file(session.root), () => undefined).remote || undefined;
      const branchRef = await reviewRef(session.root, branch, remote);
      const listed = branchRef.ok ? await changedFiles(session.root, base, branch, remote ? { remote } : {}) : branchRef;
      if (!listed.ok) {
        void vscode.window.showErrorMessage(`Foreman: cannot list the changes of ${branch} against ${base}: ${listed.message}`);
        return;
      }
      if (listed.value.length === 0) {
        void vscode.window.showInformationMessage(`${branch} has no changes against ${base} yet.`);
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
      const resources = changeSides(listed.value, worktree).map(
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
      const picked = await pickWorker(registry, target, workerRules.any, 'Open worktree: pick a worker', 'take');
      if (!picked) return;
      const folder = picked.session.worktreePath(picked.worker.id);
      if (!fs.existsSync(folder)) {
        void vscode.window.showWarningMessage(`${picked.worker.id} has no worktree yet; it is created when the worker starts a task.`);
        return;
      }
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(folder), { forceNewWindow: true });
    }),
    vscode.commands.registerCommand(CommandId.openTerminal, async (target: CommandTarget) => {
      const picked = await pickWorker(registry, target, workerRules.any, 'Open terminal: pick a worker', 'take');
      if (!picked) return;
      const cwd = picked.session.worktreePath(picked.worker.id);
      if (!fs.existsSync(cwd)) {
        void vscode.window.showWarningMessage(`${picked.worker.id} has no worktree yet.`);
        return;
      }
      vscode.window.createTerminal({ name: `Foreman: ${picked.worker.id}`, cwd, iconPath: new vscode.ThemeIcon('robot') }).show();
    }),
    vscode.commands.registerCommand(CommandId.showLog, async (target: CommandTarget) => {
      const picked = await pickWorker(registry, target, workerRules.holdsTask, 'Show log: pick a worker', 'take');
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
        void vscode.window.showInformationMessage(`No agent log yet for ${name}, attempt ${worker.attempt}.`);
        return;
      }
      await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
    }),
  ];
}
