import * as vscode from 'vscode';
import type { LivenessSettings } from '../../core/policies';
import { DisposableStore, toDisposable } from '../../base/lifetime';
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
 * The window's dashboard: at most one panel at a time, owned by the extension's composition
 * (`registerDashboard`) and disposed with it. Opening it again reveals it. A restored panel (after
 * a window reload) comes back through `revive` with the view state the webview saved.
 */
export class Dashboard implements vscode.Disposable {
  private current: DashboardPanel | undefined;

  constructor(private readonly deps: DashboardDependencies) {}

  show(): DashboardPanel {
    if (this.current) {
      this.current.reveal();
      return this.current;
    }
    const panel = vscode.window.createWebviewPanel(
      dashboardViewType,
      'Foreman Dashboard',
      vscode.ViewColumn.Active,
      webviewOptions(this.deps.extensionUri),
    );
    return this.adopt(panel, undefined);
  }

  revive(panel: vscode.WebviewPanel, state: unknown): DashboardPanel {
    this.current?.dispose();
    const saved = viewStateSchema.safeParse((state as { view?: unknown } | undefined)?.view);
    if (state !== undefined && !saved.success) this.deps.log('dashboard: ignoring a saved view state that does not parse');
    return this.adopt(panel, saved.success ? saved.data : undefined);
  }

  /**
   * Stops listening (the registry goes with the window) but leaves the panel open: closing it here
   * would stop VS Code from restoring it after a window reload.
   */
  dispose(): void {
    this.current?.detach();
    this.current = undefined;
  }

  private adopt(panel: vscode.WebviewPanel, initialView: ViewState | undefined): DashboardPanel {
    const adopted = new DashboardPanel(panel, this.deps, initialView, () => {
      if (this.current === adopted) this.current = undefined;
    });
    return (this.current = adopted);
  }
}

/** One dashboard panel: the webview with its CSP page, wired to a `DashboardHost`. */
export class DashboardPanel implements vscode.Disposable {
  /** The host and the listeners; ended by `detach` (the panel itself by `dispose`). */
  private readonly lifetime = new DisposableStore();
  private readonly host: DashboardHost;

  constructor(
    private readonly panel: vscode.WebviewPanel,
    deps: DashboardDependencies,
    initialView: ViewState | undefined,
    onDidDispose: () => void,
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
    this.lifetime.add(this.host);
    this.lifetime.add(webview.onDidReceiveMessage((message: unknown) => this.host.receive(message)));
    this.lifetime.add(panel.onDidChangeViewState((event) => this.host.setVisible(event.webviewPanel.visible)));
    this.lifetime.add(panel.onDidDispose(() => this.dispose()));
    // Added last, so it runs first: the owner forgets this panel before its parts end.
    this.lifetime.add(toDisposable(onDidDispose));
    const dist = vscode.Uri.joinPath(deps.extensionUri, 'dist');
    webview.html = dashboardHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css')).toString(),
      nonce: newNonce(),
    });
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Stops the host and the listeners; the panel stays as it is. */
  detach(): void {
    this.lifetime.dispose();
  }

  dispose(): void {
    if (this.lifetime.isDisposed) return;
    this.detach();
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
