/**
 * The `foreman` CLI for people using an installed extension (not a checkout): VS Code's integrated
 * terminals get the extension's `bin/` on PATH (an EnvironmentVariableCollection, which VS Code
 * shows in the terminal's tooltip), and *Foreman: Install CLI on PATH* links it into a user bin
 * folder for every other terminal.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CommandId } from '../commands/commandIds';
import { installCliLink, userBinFolder } from './cliLink';

export function contributeCli(context: vscode.ExtensionContext): vscode.Disposable {
  const bin = path.join(context.extensionPath, 'bin');
  const terminals = context.environmentVariableCollection;
  terminals.description = new vscode.MarkdownString(vscode.l10n.t('Foreman puts its `foreman` command on PATH.'));
  // Replaced at each activation, so an updated extension's folder takes over from the old one's.
  terminals.prepend('PATH', `${bin}${path.delimiter}`);
  return vscode.commands.registerCommand(CommandId.installCli, () => {
    const folder = userBinFolder();
    let result;
    try {
      result = installCliLink(path.join(bin, 'foreman'), folder);
    } catch (error) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Foreman: could not link the CLI into {0}: {1}', folder, String(error)));
      return;
    }
    if (!result.ok) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Foreman: {0}', result.message));
      return;
    }
    const { link, onPath } = result.value;
    void vscode.window.showInformationMessage(
      onPath
        ? vscode.l10n.t('Foreman: `foreman` is installed at {0}.', link)
        : vscode.l10n.t(
            "Foreman: `foreman` is installed at {0}; add {1} to PATH in your shell's profile to run it outside VS Code.",
            link,
            folder,
          ),
    );
  });
}
