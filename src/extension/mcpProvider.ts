/**
 * The board's MCP server (`foreman mcp`, docs/mcp.md) offered to VS Code's chat: one server per
 * Foreman folder open in this window, run with the extension's own CLI bundle under VS Code's
 * Node (`ELECTRON_RUN_AS_NODE`), so it needs nothing on PATH. The API arrived in VS Code 1.101;
 * an older VS Code has no `vscode.lm.registerMcpServerDefinitionProvider` and gets nothing (the
 * manifest's `engines.vscode` stays lower: docs/decisions.md).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionRegistry } from './sessionRegistry';

/** The provider id, as `contributes.mcpServerDefinitionProviders` declares it. */
export const mcpProviderId = 'foreman.board';

export function registerMcpProvider(context: vscode.ExtensionContext, registry: SessionRegistry): vscode.Disposable[] {
  // Older VS Code: `lm` or its MCP method is absent (the typings are newer than the engines range).
  const lm = vscode.lm as Partial<typeof vscode.lm> | undefined;
  if (typeof lm?.registerMcpServerDefinitionProvider !== 'function') return [];
  const changed = new vscode.EventEmitter<void>();
  const cli = path.join(context.extensionPath, 'dist', 'cli.js');
  let roots = '';
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () =>
      registry.sessions().map((session) => {
        const label = registry.sessions().length > 1 ? `Foreman: ${session.name}` : 'Foreman';
        const server = new vscode.McpStdioServerDefinition(label, process.execPath, [cli, 'mcp', '--dir', session.root], {
          ELECTRON_RUN_AS_NODE: '1',
        });
        server.cwd = vscode.Uri.file(session.root);
        return server;
      }),
  };
  return [
    changed,
    lm.registerMcpServerDefinitionProvider(mcpProviderId, provider),
    // The registry fires on every engine change; the servers change only when a Foreman folder opens or closes.
    registry.onDidChange(() => {
      const now = registry
        .sessions()
        .map((session) => session.root)
        .join('\n');
      if (now === roots) return;
      roots = now;
      changed.fire();
    }),
  ];
}
