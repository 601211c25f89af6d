import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ForemanSession } from '../session';
import type { SessionRegistry } from '../sessionRegistry';
import { eventsFileOf, renderTranscript } from '../../host/infraParts';

/**
 * `foreman-log:/<task>/attempt-<n>.md?root=…&task=…&attempt=…`: an attempt's agent events as a
 * readable markdown transcript (the `.md` gives the editor markdown colouring), rendered again
 * while the agent runs.
 */
export const transcriptScheme = 'foreman-log';

export function transcriptUri(session: ForemanSession, taskId: string, attempt: number): vscode.Uri {
  return vscode.Uri.from({
    scheme: transcriptScheme,
    path: `/${taskId}/attempt-${attempt}.md`,
    query: new URLSearchParams({ root: session.root, task: taskId, attempt: String(attempt) }).toString(),
  });
}

/** The events file of an attempt, when the agent's adapter writes one (plain commands may not). */
export function existingEventsFile(session: ForemanSession, taskId: string, attempt: number): string | undefined {
  const file = eventsFileOf(session.logFile(taskId, attempt));
  return fs.existsSync(file) ? file : undefined;
}

export class TranscriptProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;
  /** Size and time of each shown file when it was last rendered, to re-render only what grew. */
  private readonly rendered = new Map<string, string>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly registry: SessionRegistry) {
    // The registry fires on every engine change (the agent's activity is one) and every few seconds
    // while a worker is busy: often enough for a live transcript, with no watcher per file to keep.
    this.subscriptions = [
      registry.onDidChange(() => this.refreshOpen()),
      vscode.workspace.onDidCloseTextDocument((document) => this.rendered.delete(document.uri.toString())),
    ];
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const target = this.resolve(uri);
    if (!target) return `*${vscode.l10n.t('This Foreman folder is not open in this window.')}*\n`;
    const { session, taskId, attempt } = target;
    const logFile = session.logFile(taskId, attempt);
    const eventsFile = eventsFileOf(logFile);
    this.rendered.set(uri.toString(), fingerprint(eventsFile));
    let text = '';
    try {
      text = fs.readFileSync(eventsFile, 'utf8');
    } catch {
      // Not written yet: the header says where it will be.
    }
    const header = [
      `# ${vscode.l10n.t('{0} · attempt {1}', taskId, attempt)}`,
      '',
      vscode.l10n.t(
        'Agent transcript from `{0}`; the raw output is in [{1}]({2}).',
        path.basename(eventsFile),
        path.basename(logFile),
        vscode.Uri.file(logFile).toString(),
      ),
      '',
    ];
    return [...header, renderTranscript(text.split('\n'))].join('\n');
  }

  private resolve(uri: vscode.Uri): { session: ForemanSession; taskId: string; attempt: number } | undefined {
    const query = new URLSearchParams(uri.query);
    const session = this.registry.get(query.get('root') ?? '');
    const taskId = query.get('task');
    const attempt = Number(query.get('attempt'));
    if (!session || !taskId || !Number.isInteger(attempt) || attempt < 0) return undefined;
    return { session, taskId, attempt };
  }

  private refreshOpen(): void {
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme !== transcriptScheme) continue;
      const target = this.resolve(document.uri);
      if (!target) continue;
      const now = fingerprint(eventsFileOf(target.session.logFile(target.taskId, target.attempt)));
      if (now !== this.rendered.get(document.uri.toString())) this.changeEmitter.fire(document.uri);
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changeEmitter.dispose();
  }
}

function fingerprint(file: string): string {
  try {
    const stat = fs.statSync(file);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'absent';
  }
}
