// In-host suite for the harness fixture: proves the harness really loads an extension into a real
// VS Code extension host and that commands registered there run. Entry point: `run()`.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { runRegistered, test, waitFor } from '../support/inHostRunner';

const EXTENSION_ID = 'foreman-test.harness-extension';

interface HarnessApi {
  greetings(): number;
  statusText(): string;
  environment(): { uiKind: vscode.UIKind; remoteName: string | undefined; node: string };
}

async function harness(): Promise<HarnessApi> {
  const extension = vscode.extensions.getExtension<HarnessApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not loaded`);
  return extension.isActive ? extension.exports : extension.activate();
}

test('the fixture extension is loaded and activates', async () => {
  const api = await harness();
  const env = api.environment();
  // Desktop VS Code says Desktop; code-server says Web with a remote Node extension host.
  console.log(`    (uiKind ${vscode.UIKind[env.uiKind]}, remote ${env.remoteName ?? 'none'}, node ${env.node}, vscode ${vscode.version})`);
  assert.equal(typeof api.greetings(), 'number');
});

test('harness.hello is registered', async () => {
  await harness();
  const commands = await vscode.commands.getCommands(true);
  assert.ok(commands.includes('harness.hello'), 'harness.hello missing from the command registry');
});

test('harness.hello runs and updates the status bar item', async () => {
  const api = await harness();
  const before = api.greetings();
  const returned = await vscode.commands.executeCommand<number>('harness.hello');
  assert.equal(returned, before + 1);
  await waitFor(() => api.statusText().includes(`${before + 1} hello`), 5_000, 'the status text to change');
});

test('the workspace folder given to the run is open', () => {
  const folders = vscode.workspace.workspaceFolders ?? [];
  assert.equal(folders.length, 1, 'expected exactly one workspace folder');
  assert.match(folders[0]!.uri.path, /harness-extension/);
});

export function run(): Promise<void> {
  return runRegistered('harness fixture (in the extension host)');
}
