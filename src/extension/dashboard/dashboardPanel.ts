import * as vscode from 'vscode';
import type { LivenessSettings } from '../../core/policies';
import { type ViewState, viewStateSchema } from '../../shared/protocol';
import type { SessionRegistry } from '../sessionRegistry';
import { runDashboardAction } from './actionRunner';
import { DashboardHost } from './dashboardHost';
import type { HeartbeatHistory } from './heartbeatHistory';
import { dashboardHtml, newNonce } from './html';

export const dashboardViewType = 'foreman.dashboard';

export interface DashboardDependencies {
  readonly extensionUri: vscode.Uri;
  readonly registry: SessionRegistry;
  readonly heartbeats: HeartbeatHistory;
  readonly liveness: () => LivenessSettings;
  readonly log: (line: string) => void;
}

/**
 * The dashboard's editor panel: the webview with its CSP page, wired to a `DashboardHost`. One
 * panel at a time; opening it again reveals it. A restored panel (after a window reload) comes
 * back through `revive` with the view state the webview saved.
 */
export class DashboardPanel implements vscode.Disposable {
  private static current: DashboardPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly host: DashboardHost;
  private disposed = false;

  static show(deps: DashboardDependencies): DashboardPanel {
    if (DashboardPanel.current) {
      DashboardPanel.current.panel.reveal();
      return DashboardPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(
      dashboardViewType,
      'Foreman Dashboard',
      vscode.ViewColumn.Active,
      webviewOptions(deps.extensionUri),
    );
    return (DashboardPanel.current = new DashboardPanel(panel, deps, undefined));
  }

  static revive(panel: vscode.WebviewPanel, state: unknown, deps: DashboardDependencies): DashboardPanel {
    DashboardPanel.current?.dispose();
    const saved = viewStateSchema.safeParse((state as { view?: unknown } | undefined)?.view);
    if (state !== undefined && !saved.success) deps.log('dashboard: ignoring a saved view state that does not parse');
    return (DashboardPanel.current = new DashboardPanel(panel, deps, saved.success ? saved.data : undefined));
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    deps: DashboardDependencies,
    initialView: ViewState | undefined,
  ) {
    const webview = panel.webview;
    webview.options = { ...webviewOptions(deps.extensionUri) };
    panel.iconPath = vscode.Uri.joinPath(deps.extensionUri, 'media', 'foreman.svg');
    this.host = new DashboardHost({
      sessions: () => deps.registry.sessions(),
      onDidChangeSessions: deps.registry.onDidChange,
      heartbeats: deps.heartbeats,
      post: (message) => webview.postMessage(message),
      runAction: runDashboardAction,
      liveness: deps.liveness,
      log: deps.log,
      ...(initialView ? { initialView } : {}),
    });
    this.disposables.push(
      this.host,
      webview.onDidReceiveMessage((message: unknown) => this.host.receive(message)),
      panel.onDidChangeViewState((event) => this.host.setVisible(event.webviewPanel.visible)),
      panel.onDidDispose(() => this.dispose()),
    );
    const dist = vscode.Uri.joinPath(deps.extensionUri, 'dist');
    webview.html = dashboardHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css')).toString(),
      nonce: newNonce(),
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (DashboardPanel.current === this) DashboardPanel.current = undefined;
    while (this.disposables.length) this.disposables.pop()?.dispose();
    this.panel.dispose();
  }
}

/** Scripts on, and local resources only from the build output and the media folder. */
function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    enableForms: false,
    retainContextWhenHidden: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}
