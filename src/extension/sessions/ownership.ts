import * as path from 'node:path';
import * as vscode from 'vscode';
import { type Clock, systemClock } from '../../engine/ports';
import { CommandId } from '../commands/commandIds';
import type { SessionRegistry } from '../sessionRegistry';
import { ClientSession } from './clientSession';
import { type HandoverDecision, type HandoverRequest, requestHandover } from './handover';
import type { OwnershipNotices } from './ownershipNotices';

/**
 * How long a window's round trip may take before this extension host counts as having no window.
 * Measured in code-server 4.139 on the loaded 2-core test machine: an attached window answers in
 * 5–150 ms; a host whose tab lost its connection never answers (the call waits for a reconnect),
 * while `vscode.window.state` keeps its last value and fires nothing, so it cannot tell.
 */
const windowProbeMs = 3_000;
/** How long a read-only window waits for the owner's answer. */
const handoverAnswerMs = 10_000;

let probeCount = 0;

/**
 * Whether a window is attached to this extension host: `setContext` is carried out by the window
 * (the workbench), so it resolves only while one is connected.
 */
export function windowIsAttached(timeoutMs = windowProbeMs, clock: Clock = systemClock): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = clock.setTimeout(() => resolve(false), timeoutMs);
    void vscode.commands.executeCommand('setContext', 'foreman.windowProbe', ++probeCount).then(
      () => {
        timer.dispose();
        resolve(true);
      },
      () => {
        timer.dispose();
        resolve(true);
      },
    );
  });
}

/**
 * The owner's answer to a window that asks to take over: yes at once when nobody can see this
 * window; otherwise no, and the person at this window is asked whether to hand over, until they
 * answer (OwnershipNotices: a late "Hand Over" still hands over, and the asking window takes it).
 */
export function handoverDecider(
  notices: OwnershipNotices,
  folder: { readonly name: string; readonly root: string },
  handOver: (to: HandoverRequest) => void,
): (request: HandoverRequest) => Promise<HandoverDecision> {
  return async (request) => {
    if (!(await windowIsAttached())) {
      return { granted: true, reason: vscode.l10n.t('no window is attached to the owner: its tab was closed or lost its connection') };
    }
    notices.askHandOver(folder.root, { folderName: folder.name, pid: request.pid, handOver: () => handOver(request) });
    return {
      granted: false,
      reason: vscode.l10n.t('the window that owns it is open and in use; it was asked to hand over (choose "Hand Over" there)'),
    };
  };
}

/** "Take Over": asks the owning window of a read-only folder to hand over, and says why when it does not. */
export function registerTakeOver(registry: SessionRegistry): vscode.Disposable {
  return vscode.commands.registerCommand(CommandId.takeOver, async (root?: unknown) => {
    const clients = registry.sessions().filter((session): session is ClientSession => session instanceof ClientSession);
    const client =
      clients.find((session) => session.root === root) ??
      (clients.length <= 1
        ? clients[0]
        : (
            await vscode.window.showQuickPick(
              clients.map((session) => ({ label: session.name, description: session.ownerNote, session })),
              { title: vscode.l10n.t('Foreman: take over which folder?') },
            )
          )?.session);
    if (!client) {
      if (clients.length === 0)
        void vscode.window.showInformationMessage(vscode.l10n.t('Foreman: this window already owns every folder it shows.'));
      return;
    }
    const decision = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Foreman ({0}): asking the owning window to hand over…', client.name),
      },
      () => requestHandover(path.join(client.root, '.foreman'), { timeoutMs: handoverAnswerMs }),
    );
    if (decision.granted) client.ownerMayBeGone();
    else void vscode.window.showWarningMessage(vscode.l10n.t('Foreman ({0}): could not take over: {1}.', client.name, decision.reason));
  });
}

/**
 * The notice a window shows when it opens read-only because another window owns the folder. The
 * toast hides itself; the status bar's "Take Over" item (OwnershipNotices) stays while it is read-only.
 */
export function showReadOnlyNotice(folderName: string, root: string, note: string): void {
  const message = vscode.l10n.t(
    'Foreman ({0}): {1}. This window shows the state and sends your commands to the owner; if that window is closed or out of sight, take over here.',
    folderName,
    note,
  );
  void vscode.window.showInformationMessage(message, vscode.l10n.t('Take Over')).then((choice) => {
    if (choice) void vscode.commands.executeCommand(CommandId.takeOver, root);
  });
}
