// UI test of the Foreman dashboard in a real VS Code workbench (code-server + Debian chromium).
// A demo crew (two demo-agent workers, a three-task chain, and a manual task whose title is an HTML
// injection attempt) opens in a trusted window; the test opens the dashboard from the palette, reads
// the workers and the chain graph from inside the webview frame, checks the hostile title is text,
// approves and merges from the dashboard and sees the tree and the status bar follow, posts invalid
// messages from the webview and sees nothing change, and saves screenshots in a dark and a light theme.
// Run: node --import tsx --test test/e2e/dashboard.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Frame, FrameLocator } from 'playwright-core';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { ensureBuilt, makeTestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

const hostileTitle = '<img src=x onerror=alert(1)>';
let scratch: string;
let crewDir: string;
let workbench: Workbench;
let dashboard: FrameLocator;
const cspViolations: string[] = [];

/** A git repository with Foreman initialised: ada and grace, a short chain, and the hostile manual task. */
function demoRepo(): string {
  const repo = makeTestRepo(join(scratch, 'crew'), {
    'README.md': '# Crew\n',
    'chain.md': [
      '# Greeting feature',
      '- [ ] Add a greeting module',
      '  write greeting.js export const greet = (name) => `Hello, ${name}!`;',
      '  progress 0.5',
      '  sleep 1500',
      '  commit Add greeting module',
      '- [ ] Use the greeting',
      '  append app.js console.log("hi");',
      '  sleep 1500',
      '  commit Use greeting',
      '- [ ] Document the greeting',
      '  append README.md Greets by name.',
      '  commit Document greeting',
      '',
    ].join('\n'),
  });
  repo.foreman('init');
  repo.foreman('worker', 'add', 'ada', '--agent', 'demo');
  repo.foreman('worker', 'add', 'grace', '--agent', 'demo');
  repo.foreman('chain', 'add', 'Greeting feature', '--from', join(repo.dir, 'chain.md'));
  repo.foreman('task', 'add', hostileTitle, '--id', 'hostile-title', '--prompt', 'sleep 100', '--manual');
  return repo.dir;
}

/** The bits of a page the test touches inside `evaluate` (the project's tsconfig has no DOM types). */
interface PageGlobals {
  scrollTo(x: number, y: number): void;
  readonly document: { readonly body: { readonly scrollHeight: number } };
  readonly parent: unknown;
}

const card = (id: string) => dashboard.locator(`.worker-card[data-worker="${id}"]`);

async function workerStates(): Promise<Record<string, string>> {
  const entries = await dashboard
    .locator('.worker-card')
    .evaluateAll((cards): Array<[string, string]> =>
      cards.map((c) => [c.getAttribute('data-worker') ?? '', /state-(\S+)/.exec(c.getAttribute('class') ?? '')?.[1] ?? '']),
    );
  return Object.fromEntries(entries);
}

/** The webview's own page (inside VS Code's webview host frame). */
async function contentFrame(): Promise<Frame> {
  const host = await (await workbench.page.locator('iframe.webview.ready').elementHandle()).contentFrame();
  const frame = await (await host!.locator('iframe#active-frame').elementHandle()).contentFrame();
  return frame!;
}

async function scrollDashboard(where: 'top' | 'bottom'): Promise<void> {
  await (
    await contentFrame()
  ).evaluate((to) => {
    const page = globalThis as unknown as PageGlobals;
    page.scrollTo(0, to === 'top' ? 0 : page.document.body.scrollHeight);
  }, where);
  await workbench.page.waitForTimeout(300);
}

before(
  async () => {
    ensureBuilt();
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-dashboard-e2e-')));
    crewDir = demoRepo();
    workbench = await launchWorkbench({ folder: crewDir, extensionPath: repoRoot, name: 'dashboard', theme: 'Default Dark Modern' });
    workbench.page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    await workbench.page.setViewportSize({ width: 1500, height: 1000 });
    dashboard = workbench.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  },
  { timeout: 240_000 },
);

after(async () => {
  await workbench?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the dashboard opens from the palette and shows the workers and the chain as a graph', { timeout: 120_000 }, async () => {
  await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 90_000 });
  await workbench.runCommand('Foreman: Open Dashboard');
  await card('ada').waitFor({ timeout: 30_000 });
  assert.deepEqual(await dashboard.locator('.worker-card .worker-id').allInnerTexts(), ['ada', 'grace']);
  const nodes = dashboard.locator('.chain-graph .node');
  await nodes.nth(2).waitFor();
  assert.equal(await nodes.count(), 3);
  assert.deepEqual(await dashboard.locator('.chain-graph .node .node-title').allTextContents(), [
    'Add a greeting module',
    'Use the greeting',
    'Document the greeting',
  ]);
  assert.ok((await dashboard.locator('.chain-graph .edge').count()) >= 2, 'the chain has its edges');
  // The first task is dispatched as soon as the window owns the crew: its node is highlighted.
  await dashboard.locator('.chain-graph .node.status-running, .chain-graph .node.status-done').first().waitFor({ timeout: 30_000 });
  await dashboard.locator('.tile-running .tile-value').waitFor();
});

test('a hostile task title renders as text', { timeout: 60_000 }, async () => {
  for (const status of ['Idle', 'Queued']) {
    await dashboard.locator('.tab', { hasText: status }).click();
    await dashboard.locator('.tab.active', { hasText: status }).waitFor();
    if (await dashboard.locator('[data-task="hostile-title"]').count()) break;
  }
  const title = dashboard.locator('[data-task="hostile-title"] .task-title');
  await title.waitFor();
  assert.equal(await title.textContent(), hostileTitle);
  assert.equal(await dashboard.locator('img').count(), 0, 'no <img> element was created from the title');
  assert.deepEqual(cspViolations, [], 'the page loaded without a CSP violation');
});

test('approve and merge from the dashboard; the tree and the status bar follow', { timeout: 150_000 }, async () => {
  const reviewing = dashboard.locator('.worker-card.state-in_review').first();
  await reviewing.waitFor({ timeout: 90_000 });
  const worker = (await reviewing.getAttribute('data-worker'))!;
  await workbench.screenshot('dark-review');
  await card(worker).locator('vscode-button[data-action="approve"]').click();
  await dashboard.locator(`.worker-card.state-approved[data-worker="${worker}"]`).waitFor({ timeout: 30_000 });
  await workbench.clickActivityBar('Foreman');
  const row = workbench.treeRows('Workers').filter({ hasText: worker });
  await row.locator('.label-description', { hasText: /APPROVED/ }).waitFor({ timeout: 30_000 });
  const status = workbench.statusBarItem('foreman.liveness');
  const before = await status.innerText();
  await card(worker).locator('vscode-button[data-action="merge"]').click();
  await dashboard.locator(`.worker-card[data-worker="${worker}"]:not(.state-approved)`).waitFor({ timeout: 60_000 });
  await dashboard.locator('.chain-graph .node.status-done').first().waitFor({ timeout: 30_000 });
  await row
    .locator('.label-description')
    .filter({ hasNotText: /APPROVED/ })
    .waitFor({ timeout: 30_000 });
  await status
    .filter({ hasNotText: before })
    .waitFor({ timeout: 30_000 })
    .catch(() => undefined);
  await dashboard.locator('.timeline .event').first().waitFor({ timeout: 30_000 });
});

test('invalid messages posted from the webview change nothing', { timeout: 60_000 }, async (t) => {
  // The page took its API handle at load, and VS Code hides `window.parent` from it; the handle
  // posts through the webview host frame's `__vscode_post_message__`, so the test posts there too.
  const host = (await contentFrame()).parentFrame()!;
  const post = (message: unknown) =>
    host.evaluate((m) => {
      const send = (globalThis as unknown as Record<string, (channel: string, data: unknown) => void>)['__vscode_post_message__']!;
      send('onmessage', { message: m, transfer: [] });
    }, message);
  // First prove the channel reaches the host: a valid view change shows the Done tab.
  await post({ type: 'view', view: { taskStatus: 'done' } });
  const reached = await dashboard
    .locator('.tab.active', { hasText: 'Done' })
    .waitFor({ timeout: 5_000 })
    .then(
      () => true,
      () => false,
    );
  if (!reached) {
    t.skip('this VS Code build gives a page no second way to post to the host');
    return;
  }
  // Let the crew settle: the chain's next task reaches review and waits for a person.
  await dashboard.locator('.worker-card.state-in_review').waitFor({ timeout: 60_000 });
  await dashboard.locator('.worker-card.state-working, .worker-card.state-assigned').waitFor({ state: 'detached', timeout: 30_000 });
  const before = await workerStates();
  const idleWorker = Object.entries(before).find(([, state]) => state === 'idle')?.[0] ?? 'grace';
  const statusBefore = await workbench.statusBarItem('foreman.liveness').innerText();
  for (const message of [
    { type: 'action', requestId: 'x1', folder: '/', action: 'merge', target: { kind: 'worker', id: '../../etc' } },
    { type: 'action', requestId: 'x2', action: 'approve' },
    { type: 'execute', command: 'rm -rf /' },
    'merge everything',
    { type: 'action', requestId: 'x3', folder: 'nowhere', action: 'assign', target: { kind: 'worker', id: idleWorker } },
    { type: 'view', view: { taskStatus: 'exploded' } },
    // Well-formed, but the state does not allow it: the host refuses it.
    { type: 'action', requestId: 'x4', folder: crewDir, action: 'merge', target: { kind: 'worker', id: idleWorker } },
  ]) {
    await post(message);
  }
  await workbench.page.waitForTimeout(1500);
  assert.deepEqual(await workerStates(), before);
  assert.equal(await workbench.statusBarItem('foreman.liveness').innerText(), statusBefore);
  await dashboard.locator('.tab.active', { hasText: 'Done' }).waitFor({ timeout: 2_000 });
  assert.equal(await workbench.page.locator('.quick-input-widget').isVisible(), false, 'no assign prompt was opened');
});

test('the panel survives being hidden and shown, and a window reload, with its view state', { timeout: 180_000 }, async () => {
  await dashboard.locator('.tab', { hasText: 'Failed' }).click();
  await dashboard.locator('.tab.active', { hasText: 'Failed' }).waitFor();
  // Hidden: another editor in front of it (the page is torn down), then shown again.
  await workbench.page.keyboard.press('Control+P');
  const input = workbench.page.locator('.quick-input-widget input[type="text"]');
  await input.fill('README.md');
  await workbench.page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'README.md' }).first().click();
  await workbench.page.locator('.tabs-container .tab.active', { hasText: 'README.md' }).waitFor();
  await workbench.page.locator('.tabs-container .tab', { hasText: 'Foreman Dashboard' }).click();
  await dashboard.locator('.tab.active', { hasText: 'Failed' }).waitFor({ timeout: 30_000 });
  await card('ada').waitFor();
  // Reloaded: the serializer brings the panel back with the state the page saved.
  await workbench.runCommand('Developer: Reload Window');
  await card('ada').waitFor({ timeout: 120_000 });
  await dashboard.locator('.tab.active', { hasText: 'Failed' }).waitFor({ timeout: 30_000 });
  assert.equal(await dashboard.locator('.chain-graph .node').count(), 3);
});

async function pickTheme(label: string, bodyClass: string): Promise<void> {
  await workbench.page.keyboard.press('F1');
  const input = workbench.page.locator('.quick-input-widget input[type="text"]');
  await input.fill('>Preferences: Color Theme');
  await workbench.page.locator('.quick-input-list .monaco-list-row').filter({ hasText: 'Preferences: Color Theme' }).first().click();
  await input.fill(label);
  await workbench.page.locator('.quick-input-list .monaco-list-row').filter({ hasText: label }).first().click();
  await dashboard.locator(`body.${bodyClass}`).waitFor({ timeout: 15_000 });
  await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
  await workbench.page.waitForTimeout(1500);
}

test('screenshots in a dark, a light and a high-contrast theme', { timeout: 120_000 }, async () => {
  await workbench.runCommand('View: Close Primary Side Bar').catch(() => undefined);
  await dashboard.locator('.worker-card').first().waitFor();
  // The refusal shown by the previous test fades out first.
  await dashboard.locator('.status-line.visible').waitFor({ state: 'detached', timeout: 15_000 });
  await dashboard.locator('.tab', { hasText: 'Idle' }).click();
  await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
  await workbench.page.waitForTimeout(1500);
  await workbench.screenshot('dark');
  await scrollDashboard('bottom');
  await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
  await workbench.screenshot('dark-lower');
  await scrollDashboard('top');
  await pickTheme('Light Modern', 'vscode-light');
  await workbench.screenshot('light');
  await scrollDashboard('bottom');
  await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
  await workbench.screenshot('light-lower');
  await scrollDashboard('top');
  await pickTheme('Default High Contrast', 'vscode-high-contrast');
  await workbench.screenshot('high-contrast');
});
