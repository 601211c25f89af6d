import * as vscode from 'vscode';
import type { AgentTerminal, TerminalHost, TerminalLaunch } from '../host/infraParts';

/**
 * Agents with `mode: "terminal"` run in the integrated terminal: the executable itself is the
 * terminal's process (no shell in between, argv as given), so a person can watch and answer it.
 * The terminal shows without taking focus; when its process ends VS Code closes it and reports the
 * exit code, which decides between submit and a failed attempt.
 */
export class VsCodeTerminalHost implements TerminalHost {
  open(launch: TerminalLaunch): AgentTerminal {
    const terminal = vscode.window.createTerminal({
      name: launch.name,
      shellPath: launch.executable,
      shellArgs: [...launch.args],
      cwd: launch.cwd,
      env: { ...launch.env },
      strictEnv: true,
      iconPath: new vscode.ThemeIcon('robot'),
      isTransient: true,
    });
    const exited = new Promise<number | undefined>((resolve) => {
      const watch = vscode.window.onDidCloseTerminal((closed) => {
        if (closed !== terminal) return;
        watch.dispose();
        resolve(closed.exitStatus?.code);
      });
    });
    terminal.show(true);
    if (launch.input !== undefined) terminal.sendText(launch.input, true);
    return { exited, close: () => terminal.dispose() };
  }
}
