import * as vscode from 'vscode';
import { CommandId } from '../commands/commandIds';
import type { SessionRegistry } from '../sessionRegistry';

/** The status item's command: asks again about the oldest unanswered handover request. Not contributed (no palette entry). */
export const answerHandoverCommand = 'foreman.answerHandover';

/** A request from another window to take over a folder this window owns, not answered yet. */
interface PendingHandover {
  readonly folderName: string;
  readonly pid: number;
  readonly handOver: () => void;
}

/**
 * Who owns a folder is a question a person answers, so its notices stay until answered (issue 30):
 * a toast hides itself after a few seconds, so each notice is also a status bar item that stays —
 * "Hand Over?" in the owner window while another window's request waits, "Take Over" in a
 * read-only window — visible without hovering over a view, as the view's title actions are not.
 */
export class OwnershipNotices implements vscode.Disposable {
  private readonly pending = new Map<string, PendingHandover>();
  private readonly handOverItem = vscode.window.createStatusBarItem('foreman.handOver', vscode.StatusBarAlignment.Left, 101);
  private readonly takeOverItem = vscode.window.createStatusBarItem('foreman.takeOver', vscode.StatusBarAlignment.Left, 101);
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly registry: SessionRegistry) {
    this.handOverItem.name = vscode.l10n.t('Foreman: Hand Over');
    this.handOverItem.command = answerHandoverCommand;
    this.handOverItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    this.takeOverItem.name = vscode.l10n.t('Foreman: Take Over');
    this.takeOverItem.text = `$(lock) ${vscode.l10n.t('Read-only · Take Over')}`;
    this.takeOverItem.command = CommandId.takeOver;
    this.disposables = [
      this.handOverItem,
      this.takeOverItem,
      vscode.commands.registerCommand(answerHandoverCommand, () => this.askAgain()),
      registry.onDidChange(() => this.update()),
    ];
    this.update();
  }

  /** Another window asks to take over `root`: asked here until the person answers, Hand Over or Keep. */
  askHandOver(root: string, request: PendingHandover): void {
    this.pending.set(root, request);
    this.update();
    this.ask(root, request);
  }

  private ask(root: string, request: PendingHandover): void {
    const message = vscode.l10n.t(
      'Foreman ({0}): another window (pid {1}) asks to take over this workspace.',
      request.folderName,
      request.pid,
    );
    const handOver = vscode.l10n.t('Hand Over');
    void vscode.window.showInformationMessage(message, handOver, vscode.l10n.t('Keep It Here')).then((choice) => {
      // Closed without a choice: the question stays in the status bar.
      if (!choice || this.pending.get(root) !== request) return;
      this.pending.delete(root);
      this.update();
      if (choice === handOver) request.handOver();
    });
  }

  private askAgain(): void {
    const [first] = this.pending;
    if (first) this.ask(...first);
  }

  private update(): void {
    // A folder this window no longer owns has nothing to hand over.
    for (const root of [...this.pending.keys()]) {
      const session = this.registry.get(root);
      if (!session || session.ownerNote) this.pending.delete(root);
    }
    const [first] = this.pending.values();
    if (first) {
      this.handOverItem.text = `$(arrow-swap) ${vscode.l10n.t('Hand Over {0}?', first.folderName)}`;
      this.handOverItem.tooltip = vscode.l10n.t(
        'Another window (pid {0}) asks to take over {1}. Click to answer.',
        first.pid,
        first.folderName,
      );
      this.handOverItem.show();
    } else {
      this.handOverItem.hide();
    }
    const readOnly = this.registry.sessions().filter((session) => session.ownerNote);
    if (readOnly.length) {
      const notes = readOnly.map((session) => `${session.name}: ${session.ownerNote ?? ''}`).join('\n');
      this.takeOverItem.tooltip = `${notes}\n${vscode.l10n.t('Click to ask the owner to hand over.')}`;
      this.takeOverItem.show();
    } else {
      this.takeOverItem.hide();
    }
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }
}
