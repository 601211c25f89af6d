// UI smoke test of the harness itself: opens the fixture extension's folder in a real VS Code
// workbench, runs its command from the palette, and checks the notification and the status bar item.
// Run: node --import tsx --test test/e2e/harness.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { join } from 'node:path';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { launchWorkbench, type Workbench } from './support/workbench';

const fixture = join(repoRoot, 'test/fixtures/harness-extension');
let workbench: Workbench;

before(
  async () => {
    workbench = await launchWorkbench({ folder: fixture, extensionPath: fixture, name: 'harness' });
  },
  { timeout: 120_000 },
);

after(async () => {
  await workbench?.close();
});

test('the fixture shows its status bar item once it activates', { timeout: 60_000 }, async () => {
  const item = workbench.statusBarItem('harness.item');
  await item.waitFor({ state: 'visible' });
  assert.match(await item.innerText(), /Harness ready/);
});

test('Harness: Say Hello runs from the palette and notifies', { timeout: 60_000 }, async () => {
  await workbench.runCommand('Harness: Say Hello');
  const toast = workbench.notifications().filter({ hasText: 'Hello from the Foreman harness' });
  await toast.waitFor({ state: 'visible' });
  await workbench.statusBarItem('harness.item').filter({ hasText: '1 hello' }).waitFor();
  const shot = await workbench.screenshot('hello');
  assert.ok(existsSync(shot), `screenshot ${shot} was not written`);
});

test('the explorer shows the opened folder', { timeout: 60_000 }, async () => {
  await workbench.clickActivityBar('Explorer');
  const labels = await workbench.treeLabels('Files Explorer');
  assert.ok(labels.includes('extension.js'), `explorer rows: ${labels.join(', ')}`);
});
