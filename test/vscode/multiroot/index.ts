// In-host suite for a multi-root workspace (ARCHITECTURE §9: one engine per folder that has
// Foreman). run.mjs opens alpha (a1), beta (b1, b2) and gamma (no Foreman) in one window.
// Entry point: `run()`. Run: node test/vscode/multiroot/run.mjs
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseRequest } from '../../../src/core/requests';
import { readOwner } from '../../../src/infra/db/ownerLock';
import { CommandId } from '../../../src/extension/commands/commandIds';
import type { ForemanSession } from '../../../src/extension/session';
import type { SessionRegistry } from '../../../src/extension/sessionRegistry';
import { WorkersTreeProvider } from '../../../src/extension/tree/workersTree';
import { runRegistered, test, waitFor } from '../support/inHostRunner';

interface ForemanApi {
  registry: SessionRegistry;
  ready: Promise<void>;
}

const scratch = process.env['FOREMAN_TEST_SCRATCH'] ?? '';
const folderPath = (name: string) => fs.realpathSync(path.join(scratch, name));

async function foreman(): Promise<ForemanApi> {
  const extension = vscode.extensions.getExtension<ForemanApi>('foreman-dev.foreman');
  assert.ok(extension, 'Foreman is not loaded');
  const api = await extension.activate();
  await api.ready;
  return api;
}

async function sessionOf(name: string): Promise<ForemanSession> {
  const { registry } = await foreman();
  const found = registry.sessions().find((session) => fs.realpathSync(session.root) === folderPath(name));
  assert.ok(found, `no Foreman session for ${name}`);
  return found;
}

const labelOf = (item: vscode.TreeItem) => (typeof item.label === 'string' ? item.label : (item.label?.label ?? ''));
const workerIds = (session: ForemanSession) => session.snapshot().workers.map((worker) => worker.id);

test('one engine per folder that has Foreman, none for the folder without', async () => {
  assert.deepEqual(
    (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.name),
    ['alpha', 'beta', 'gamma'],
  );
  const { registry } = await foreman();
  const roots = registry
    .sessions()
    .map((session) => path.basename(session.root))
    .sort();
  assert.deepEqual(roots, ['alpha', 'beta']);
  assert.deepEqual(workerIds(await sessionOf('alpha')), ['a1']);
  assert.deepEqual(workerIds(await sessionOf('beta')).sort(), ['b1', 'b2']);
  for (const name of ['alpha', 'beta']) {
    assert.equal(readOwner(path.join(folderPath(name), '.foreman'))?.pid, process.pid, `this window owns ${name}`);
  }
  assert.equal(fs.existsSync(path.join(folderPath('gamma'), '.foreman')), false, 'gamma was left alone');
});

test('the Workers tree groups workers under their folder', async () => {
  const { registry } = await foreman();
  const tree = new WorkersTreeProvider(registry);
  try {
    const top = tree.getChildren();
    assert.deepEqual(
      top.map((node) => node.kind),
      ['folder', 'folder'],
    );
    const byFolder = Object.fromEntries(
      top.map((node) => [labelOf(tree.getTreeItem(node)), tree.getChildren(node).map((child) => labelOf(tree.getTreeItem(child)))]),
    );
    assert.deepEqual(byFolder['alpha'], ['a1']);
    assert.deepEqual([...(byFolder['beta'] ?? [])].sort(), ['b1', 'b2']);
  } finally {
    tree.dispose();
  }
});

test("a request through one folder's session changes that folder's engine only", async () => {
  const beta = await sessionOf('beta');
  const alpha = await sessionOf('alpha');
  const request = parseRequest({ command: 'worker.add', args: { id: 'b3' }, actor: 'vscode' });
  assert.ok(request.ok);
  const added = await beta.execute(request.request);
  assert.ok(added.ok, added.ok ? '' : added.message);
  await waitFor(() => workerIds(beta).includes('b3'), 5_000, 'b3 in beta');
  assert.deepEqual(workerIds(alpha), ['a1']);
});

test('"Foreman: Initialise" picks the one folder without Foreman and opens its engine', async () => {
  const { registry } = await foreman();
  await vscode.commands.executeCommand(CommandId.initialise);
  await waitFor(() => registry.sessions().length === 3, 15_000, 'a third session');
  assert.ok(
    fs.existsSync(path.join(folderPath('gamma'), '.foreman', 'foreman.db')) || fs.existsSync(path.join(folderPath('gamma'), '.foreman')),
  );
  assert.deepEqual(workerIds(await sessionOf('gamma')), []);
  assert.equal(readOwner(path.join(folderPath('gamma'), '.foreman'))?.pid, process.pid);
});

test("every Foreman setting can differ per folder: a value set for alpha is alpha's alone", async () => {
  const extension = vscode.extensions.getExtension('foreman-dev.foreman');
  assert.ok(extension);
  const manifest = extension.packageJSON as {
    contributes: { configuration: { properties: Record<string, { default: unknown; scope?: string }> } };
  };
  const [alpha, beta] = ['alpha', 'beta'].map((name) => vscode.workspace.workspaceFolders!.find((folder) => folder.name === name)!);
  const properties = Object.entries(manifest.contributes.configuration.properties);
  // `foreman.store` is the one setting a folder must not set (a cloned repository choosing where this
  // machine's password goes): VS Code refuses it there, which is checked below.
  const machineOnly = properties.filter(([, property]) => property.scope === 'machine').map(([name]) => name.replace(/^foreman\./, ''));
  assert.deepEqual(machineOnly, ['store']);
  const keys = properties.filter(([, property]) => property.scope !== 'machine').map(([name]) => name.replace(/^foreman\./, ''));
  assert.ok(keys.length >= 15);
  await assert.rejects(
    Promise.resolve(
      vscode.workspace.getConfiguration('foreman', alpha!.uri).update('store', 'sqljs', vscode.ConfigurationTarget.WorkspaceFolder),
    ),
    /does not support the folder resource scope/,
  );
  // VS Code refuses a folder value for a window-scoped setting ("does not support the folder resource
  // scope") and ignores one written by hand: both are what the issue found.
  const marker = (key: string) => `per-folder ${key}`;
  // Every value at once, in the folder's own settings file as a person would write them: one
  // reload of the configuration rather than one per setting (each update reloads it).
  const settingsFile = path.join(alpha!.uri.fsPath, '.vscode', 'settings.json');
  const before = fs.existsSync(settingsFile) ? fs.readFileSync(settingsFile, 'utf8') : undefined;
  const existing = before ? (JSON.parse(before) as Record<string, unknown>) : {};
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  const folderValue = (key: string) => vscode.workspace.getConfiguration('foreman', alpha!.uri).inspect(key)?.workspaceFolderValue;
  try {
    fs.writeFileSync(settingsFile, JSON.stringify({ ...existing, ...Object.fromEntries(keys.map((key) => [`foreman.${key}`, marker(key)])) }, null, 2));
    await waitFor(() => keys.every((key) => folderValue(key) === marker(key)), 15_000, 'the folder settings read back');
    for (const key of keys) {
      assert.equal(folderValue(key), marker(key), key);
      assert.notEqual(vscode.workspace.getConfiguration('foreman', beta!.uri).get(key), marker(key), `${key} leaked into beta`);
    }
  } finally {
    if (before === undefined) fs.rmSync(settingsFile, { force: true });
    else fs.writeFileSync(settingsFile, before);
    await waitFor(() => keys.every((key) => folderValue(key) === undefined), 15_000, 'the folder settings removed');
  }
});

export function run(): Promise<void> {
  return runRegistered('Foreman multi-root (in the extension host)');
}
