import * as vscode from 'vscode';
import { CommandId } from '../commands/commandIds';
import { engineSettingsOf, readConfiguration } from '../configuration';
import type { SessionRegistry } from '../sessionRegistry';
import { Dashboard, dashboardViewType } from './dashboardPanel';
import { HeartbeatHistory } from './heartbeatHistory';

export interface DashboardOptions {
  /** Where the dashboard writes what it drops or fails at (the Foreman output channel). */
  readonly log?: (line: string) => void;
}

/**
 * Registers "Foreman: Open Dashboard" and the panel serializer (the dashboard survives a window
 * reload), and starts keeping heartbeat history from the sessions' changes so the timelines have
 * the last minutes in them when the panel opens.
 */
export function registerDashboard(
  context: vscode.ExtensionContext,
  registry: SessionRegistry,
  options: DashboardOptions = {},
): vscode.Disposable[] {
  let channel: vscode.LogOutputChannel | undefined;
  const log =
    options.log ??
    ((line: string) => {
      channel ??= vscode.window.createOutputChannel('Foreman Dashboard', { log: true });
      channel.info(line);
    });
  const heartbeats = new HeartbeatHistory();
  const observe = () => {
    const now = Date.now();
    const roots = new Set<string>();
    for (const session of registry.sessions()) {
      roots.add(session.root);
      try {
        heartbeats.observe(session.root, session.snapshot(), now);
      } catch (error) {
        log(`dashboard: could not read ${session.name}: ${String(error)}`);
      }
    }
    heartbeats.retain(roots);
  };
  const deps = {
    extensionUri: context.extensionUri,
    registry,
    heartbeats,
    liveness: () => engineSettingsOf(readConfiguration(undefined, () => undefined)).liveness,
    log,
  };
  observe();
  const dashboard = new Dashboard(deps);
  return [
    registry.onDidChange(observe),
    vscode.commands.registerCommand(CommandId.openDashboard, () => {
      dashboard.show();
    }),
    vscode.window.registerWebviewPanelSerializer(dashboardViewType, {
      deserializeWebviewPanel: (panel: vscode.WebviewPanel, state: unknown) => {
        dashboard.revive(panel, state);
        return Promise.resolve();
      },
    }),
    // Its host goes with the window's composition; the panel stays, so that VS Code restores it after a reload.
    dashboard,
    { dispose: () => channel?.dispose() },
  ];
}
