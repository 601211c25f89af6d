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
import type { FrameLocator } from 'playwright-core';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { clearNotifications, contentFrame, pickTheme, readStrips, scrollDashboard, workerStates } from './support/dashboardPage';
import { type TestRepo, ensureBuilt, makeTestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

const hostileTitle = '<img src=x onerror=alert(1)>';
let scratch: string;
let crewDir: string;
let workbench: Workbench;
let dashboard: FrameLocator;
let crew: TestRepo;
/** The worker whose review the test approved and merged. */
let reviewed: string;
const cspViolations: string[] = [];

/** A git repository with Foreman initialised: ada and grace, a short chain, and the hostile manual task. */
function demoRepo(): string {
  const repo = makeTestRepo(join(scratch, 'crew'), {
    'README.md': '# Crew\n',
    'chain.md': [
      '# Greeting feature',
      '- [ ] Add a greeting module that greets by name',
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
  crew = repo;
  return repo.dir;
}

const card = (id: string) => dashboard.locator(`.worker-card[data-worker="${id}"]`);

before(
  async () => {
    ensureBuilt();
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-dashboard-e2e-')));
    crewDir = demoRepo();
    workbench = await launchWorkbench({
      folder: crewDir,
      extensionPath: repoRoot,
      name: 'dashboard',
      theme: 'Default Dark Modern',
      // A short WARN threshold, so any silence shaded in a wait for review would show within the test.
      settings: { 'foreman.heartbeat.warnSeconds': 5 },
    });
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
  // A node is as wide as the panel allows: the long first title shows whole, not cut at a fixed length.
  assert.deepEqual(await dashboard.locator('.chain-graph .node .node-title').allTextContents(), [
    'Add a greeting module that greets by name',
    'Use the greeting',
    'Document the greeting',
  ]);
  assert.ok((await dashboard.locator('.chain-graph .edge').count()) >= 2, 'the chain has its edges');
  // The first task is dispatched as soon as the window owns the crew: its node is highlighted.
  await dashboard.locator('.chain-graph .node.status-running, .chain-graph .node.status-done').first().waitFor({ timeout: 30_000 });
  await dashboard.locator('.tile-running .tile-value').waitFor();
  // The task panel opens on a tab with something in it, not on an empty "Queued".
  const active = dashboard.locator('.tasks .tab.active');
  assert.notEqual((await active.locator('.tab-count').innerText()).trim(), '0', `opened on ${await active.innerText()}`);
  assert.equal(await dashboard.locator('.tasks p.empty').count(), 0);
});

test('a hostile task title renders as text', { timeout: 60_000 }, async () => {
  for (const status of ['To assign', 'Queued']) {
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
  reviewed = worker;
  // The agent exited 0 after reporting 50%: its work is done, and the bar says so.
  await card(worker).locator('.progress-row.finished', { hasText: '100% · agent finished' }).waitFor();
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
  assert.match(before, /approved/, `the status bar counted the approved worker: ${before}`);
  await status.filter({ hasNotText: /approved/ }).waitFor({ timeout: 30_000 });
  await dashboard.locator('.timeline .event').first().waitFor({ timeout: 30_000 });
});

// Before the reload below: the timelines' history lives in the extension host's memory.
test('heartbeat strips shade silence only where a heartbeat was due, never the wait for review', { timeout: 60_000 }, async () => {
  const strips = await readStrips(dashboard);
  for (const strip of strips) {
    for (const [from, to] of strip.gaps) {
      const inside = strip.due.some(([start = 0, end = 0]: number[]) => from! >= start - 1 && to! <= end + 1);
      assert.ok(
        inside,
        `${strip.worker}: a gap shaded at ${from}–${to} outside the stretches where a beat was due (${JSON.stringify(strip.due)})`,
      );
    }
  }
  // The reviewed worker's working stretch ended when it submitted: its review is not a due stretch.
  const ofReviewed = strips.find((strip) => strip.worker === reviewed)!;
  assert.ok(
    ofReviewed.due.some(([, end = 300]: number[]) => end < 299),
    `due stretches of ${reviewed}: ${JSON.stringify(ofReviewed.due)}`,
  );
  // The dashboard redraws on every snapshot, which can swap the card out mid-scroll: try again then.
  for (let round = 1; ; round++) {
    const scrolled = await card(reviewed)
      .scrollIntoViewIfNeeded({ timeout: 5_000 })
      .then(() => true)
      .catch((error: Error) => {
        if (round >= 5 || !/not attached|detached/i.test(error.message)) throw error;
        return false;
      });
    if (scrolled) break;
  }
  await workbench.screenshot('dark-strips');
});

test('invalid messages posted from the webview change nothing', { timeout: 60_000 }, async (t) => {
  // The page took its API handle at load, and VS Code hides `window.parent` from it; the handle
  // posts through the webview host frame's `__vscode_post_message__`, so the test posts there too.
  const host = (await contentFrame(workbench)).parentFrame()!;
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
  const before = await workerStates(dashboard);
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
  // The last message is the only well-formed one: its refusal, shown on the page, says every
  // message before it was read (the host takes them in order).
  await dashboard.locator('.status-line.visible', { hasText: /^Not done: / }).waitFor({ timeout: 15_000 });
  assert.deepEqual(await workerStates(dashboard), before);
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

test('a task that fails for good is listed once in Needs you, and its worker says FAILED, not DEAD', { timeout: 90_000 }, async () => {
  const idle = dashboard.locator('.worker-card.state-idle').first();
  await idle.waitFor({ timeout: 30_000 });
  const worker = (await idle.getAttribute('data-worker'))!;
  crew.foreman('task', 'add', 'Doomed task', '--id', 'doomed', '--prompt', 'fail', '--max-attempts', '1', '--manual');
  crew.foreman('assign', worker, 'doomed');
  const failed = dashboard.locator(`.worker-card.state-failed[data-worker="${worker}"]`);
  await failed.waitFor({ timeout: 60_000 });
  assert.deepEqual(
    await failed
      .locator('header .chip')
      .allInnerTexts()
      .then((chips) => chips.map((chip) => chip.trim().toUpperCase())),
    ['FAILED'],
  );
  assert.equal(await failed.locator('.reason').count(), 0, 'no liveness verdict on a failed worker');
  const items = dashboard.locator('.attention-item').filter({ hasText: 'Doomed task' });
  await items.first().waitFor();
  assert.equal(await items.count(), 1, 'listed once');
  assert.match((await items.first().getAttribute('class')) ?? '', /kind-failed/);
  await scrollDashboard(workbench, 'top');
  await workbench.screenshot('dark-failed');
});

test('screenshots in a dark, a light and a high-contrast theme', { timeout: 120_000 }, async () => {
  await workbench.runCommand('View: Close Primary Side Bar');
  await dashboard.locator('.worker-card').first().waitFor();
  // The refusal shown by the previous test fades out first.
  await dashboard.locator('.status-line.visible').waitFor({ state: 'detached', timeout: 15_000 });
  await dashboard.locator('.tab', { hasText: 'To assign' }).click();
  const cards = Object.keys(await workerStates(dashboard)).length;
  /** What a theme changes that a screenshot shows: the page's colours, every card still drawn. */
  const looks = async (theme: string) => {
    assert.equal(Object.keys(await workerStates(dashboard)).length, cards, `every worker card is drawn in ${theme}`);
    return dashboard.locator('body').evaluate((body) => {
      const style = (globalThis as unknown as { getComputedStyle(e: unknown): { color: string; backgroundColor: string } }).getComputedStyle(body);
      return `${style.color} on ${style.backgroundColor}`;
    });
  };
  await clearNotifications(workbench);
  const dark = await looks('dark');
  await workbench.screenshot('dark');
  await scrollDashboard(workbench, 'bottom');
  await workbench.screenshot('dark-lower');
  await scrollDashboard(workbench, 'top');
  await pickTheme(workbench, dashboard, 'Light Modern', 'vscode-light');
  const light = await looks('light');
  await workbench.screenshot('light');
  await scrollDashboard(workbench, 'bottom');
  await workbench.screenshot('light-lower');
  await scrollDashboard(workbench, 'top');
  await pickTheme(workbench, dashboard, 'Default High Contrast', 'vscode-high-contrast');
  const contrast = await looks('high contrast');
  await workbench.screenshot('high-contrast');
  assert.equal(new Set([dark, light, contrast]).size, 3, `each theme has its own colours: ${[dark, light, contrast].join(' | ')}`);
});
