// UI test: the real Claude Code CLI (devDependency) run by Foreman in a real VS Code window
// (code-server + Debian chromium), against the scripted model server (the only stand-in: the model
// is out of reach offline). One window for the whole file:
//   1. ada (profile `claude`) takes a task; while its Bash call runs, the dashboard card shows the
//      live activity line the agent's hook reported;
//   2. it finishes: IN_REVIEW with the agent's own last message as the summary, and its tokens and
//      cost on the card and in the statistics tiles;
//   3. "Show Agent Log" opens the readable markdown transcript (attempt-1.md), not raw stream-json;
//   4. grace (profile `claude-gated`, allow-list Read/Edit/Write) runs a Bash call outside it: the
//      dashboard, the Workers tree, the status bar and a notification say "waiting for you:
//      permission to use Bash: node -e …", longer than the STALE threshold without ever showing
//      STALE; Allow on the dashboard card lets the call run and the work reaches review.
// The agent profiles go in the remote machine settings: code-server's window is a remote one, where
// VS Code ignores a user-level `foreman.agents` (machine-overridable).
// Screenshots: test-results/real-agent-*.png.
// Run: node --import tsx --test test/e2e/realAgent.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import type { ScriptedModel } from '../support/scriptedModel';
import { openRealClaudeWorkbench, type RealClaudeWorkbench } from './support/realClaudeWorkbench';
import type { TestRepo } from './support/repo';
import type { Workbench } from './support/workbench';

/** The lowest thresholds the settings allow: the permission wait below outlasts staleSeconds. */
const warnSeconds = 5;
const staleSeconds = 10;
const helloCommand = 'sleep 2 && echo hello > hello.txt';
const gatedCommand = `node -e "require('fs').writeFileSync('made.txt','x')"`;

let opened: RealClaudeWorkbench | undefined;
let model: ScriptedModel;
let repo: TestRepo;
let workbench: Workbench;
let dashboard: FrameLocator;
const cli = (...args: string[]): string => repo.foreman(...args);
const card = (worker: string) => dashboard.locator(`.worker-card[data-worker="${worker}"]`);

interface CliWorker {
  readonly id: string;
  readonly state: string;
  readonly liveness: string;
  readonly livenessReason: string;
}

function workerFromCli(id: string): CliWorker {
  const status = JSON.parse(cli('status', '--json')) as { workers: CliWorker[] };
  const worker = status.workers.find((candidate) => candidate.id === id);
  assert.ok(worker, `${id} is in the status`);
  return worker;
}

before(
  async () => {
    // Claude Code with its default retries, as users run it.
    opened = await openRealClaudeWorkbench({
      name: 'real-agent',
      repo: { folder: 'hello', files: { 'README.md': '# Hello\n' } },
      settings: {
        'foreman.heartbeat.warnSeconds': warnSeconds,
        'foreman.heartbeat.staleSeconds': staleSeconds,
        'foreman.heartbeat.deadSeconds': 600,
      },
      moreProfiles: (claude) => ({ 'claude-gated': { ...claude, allowedTools: ['Read', 'Edit', 'Write'] } }),
    });
    ({ model, repo, workbench, dashboard } = opened);
  },
  { timeout: 180_000 },
);

after(async () => {
  await opened?.close();
});

test('a running Claude Code agent shows what it does now on its dashboard card', { timeout: 120_000 }, async () => {
  await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 90_000 });
  await workbench.clickActivityBar('Foreman');
  await workbench.treeRow('Workers', 'ada').waitFor();
  await workbench.runCommand('Foreman: Open Dashboard');
  await card('ada').waitFor({ timeout: 30_000 });

  // The task arrives once the dashboard is up, so the two seconds of the Bash call are watched.
  model.play([{ bash: helloCommand }, { text: 'Added hello.txt.' }]);
  cli('task', 'add', 'Say hello', '--id', 'hello', '--prompt', 'Create hello.txt containing hello.');
  const live = dashboard.locator('.worker-card.state-working[data-worker="ada"] .activity-line .activity-text', {
    hasText: `Bash: ${helloCommand}`,
  });
  await live.waitFor({ timeout: 60_000 });
  assert.equal(await live.innerText(), `Bash: ${helloCommand}`);
  await workbench.screenshot('1-activity');
});

test('the finished run is in review with the agent’s own summary, its tokens and its cost', { timeout: 120_000 }, async () => {
  const reviewing = dashboard.locator('.worker-card.state-in_review[data-worker="ada"]');
  await reviewing.waitFor({ timeout: 60_000 });
  assert.equal(await reviewing.locator('.summary-text').innerText(), 'Added hello.txt.');
  assert.equal(repo.git('show', 'ada/hello:hello.txt'), 'hello', 'the tool call ran in ada’s worktree and was committed');

  const usage = await reviewing.locator('.usage').innerText();
  assert.match(usage, /^\d+(\.\d)?k? tokens · (\$\d+\.\d\d|<\$0\.01)$/, `the card shows tokens and cost: ${usage}`);
  const tokens = await dashboard.locator('.tile-tokens .tile-value').innerText();
  assert.match(tokens, /^\d+(\.\d)?[kM]?$/);
  assert.notEqual(tokens, '0');
  const cost = await dashboard.locator('.tile-cost .tile-value').innerText();
  assert.match(cost, /^(\$\d+\.\d\d|<\$0\.01)$/, `the cost tile shows what Claude reported: ${cost}`);
  assert.ok(usage.startsWith(`${tokens} tokens`), `one run so far: the tile (${tokens}) is the card's (${usage})`);
  await workbench
    .treeRow('Workers', 'ada')
    .locator('.label-description', { hasText: /^IN_REVIEW · Say hello/ })
    .waitFor({ timeout: 10_000 });
  await workbench.screenshot('2-review-usage');
});

test('Show Agent Log opens a readable transcript of the run', { timeout: 60_000 }, async () => {
  const page = workbench.page;
  // ada is the only worker holding a task: a command that only shows something opens its log at once.
  await workbench.runCommand('Foreman: Show Agent Log');
  const tab = page.locator('.tabs-container .tab', { hasText: 'attempt-1.md' });
  await tab.waitFor({ timeout: 15_000 });
  assert.equal(await workbench.quickInput().isVisible(), false, 'no pick of one worker');
  const lines = page.locator('.part.editor .editor-instance .monaco-editor .view-lines').first();
  await lines.filter({ hasText: 'Added hello.txt.' }).waitFor({ timeout: 15_000 });
  const text = (await lines.innerText()).replace(/\u00a0/g, ' ');
  assert.ok(text.includes(`Bash: ${helloCommand}`), `the tool call is in the transcript:\n${text}`);
  assert.ok(text.includes('Added hello.txt.'), 'the agent’s message is in it');
  assert.ok(text.includes('Result'), 'and how the run ended');
  assert.doesNotMatch(text, /"type"\s*:\s*"(assistant|user|system|result)"/, 'no raw stream-json');
  await workbench.screenshot('3-agent-log');
  await page.locator('.tabs-container .tab', { hasText: 'Foreman Dashboard' }).click();
  await card('ada').waitFor({ timeout: 30_000 });
});

test('a tool call outside the allow-list waits for a person, is never STALE, and runs once allowed', { timeout: 150_000 }, async () => {
  model.play([{ bash: gatedCommand }, { text: 'Made it.' }]);
  cli('worker', 'add', 'grace', '--agent', 'claude-gated');
  cli('task', 'add', 'Make a file', '--id', 'made', '--prompt', 'Make made.txt with node.');

  const waiting = dashboard.locator('.worker-card.needs-input[data-worker="grace"]');
  await waiting.waitFor({ timeout: 60_000 });
  const message = (await waiting.locator('.needs-input-line').innerText()).replace(/\s+/g, ' ');
  assert.match(message, /^waiting for you: permission to use Bash: node -e/, message);
  const row = workbench.treeRow('Workers', 'grace');
  await row.locator('.label-description', { hasText: /^waiting for you: permission to use Bash: node -e/ }).waitFor({ timeout: 10_000 });
  const status = workbench.statusBarItem('foreman.liveness');
  await status.filter({ hasText: /1 waiting for you/ }).waitFor({ timeout: 10_000 });
  const toast = workbench.notifications().filter({ hasText: /grace is waiting for you.*permission to use Bash: node -e/ });
  await toast.first().waitFor({ timeout: 10_000 });
  for (const button of ['Allow', 'Deny', 'Show Agent Log'])
    await toast.first().getByRole('button', { name: button }).waitFor({ timeout: 5_000 });
  await workbench.screenshot('4-waiting-notification');

  // Longer than the STALE threshold: a wait for a person is not silence, anywhere.
  const waitedFrom = Date.now();
  while (Date.now() - waitedFrom < (staleSeconds + 2) * 1000) {
    const classes = (await card('grace').getAttribute('class')) ?? '';
    assert.match(classes, /\bstate-working\b/, `grace still works while it waits: ${classes}`);
    assert.match(classes, /\bneeds-input\b/);
    assert.doesNotMatch(classes, /\bliveness-(stale|dead)\b/, `grace is not shown STALE: ${classes}`);
    assert.doesNotMatch(await row.locator('.label-description').innerText(), /STALE/);
    assert.doesNotMatch(await status.innerText(), /stale/i);
    const grace = workerFromCli('grace');
    assert.equal(grace.state, 'WORKING');
    assert.match(grace.livenessReason, /^waiting for you: permission to use Bash/);
    await workbench.page.waitForTimeout(1_000);
  }
  assert.equal(await card('grace').locator('.reason').count(), 0, 'no liveness warning on the card');
  assert.ok(!existsSync(join(dirname(repo.dir), '.foreman-worktrees', 'hello', 'grace', 'made.txt')), 'nothing ran before the answer');
  await workbench.screenshot('5-waiting-not-stale');

  // Answer from the dashboard card (the notification and the tree row offer the same Allow).
  await card('grace').locator('vscode-button[data-action="allow"]').click();
  const reviewing = dashboard.locator('.worker-card.state-in_review[data-worker="grace"]');
  await reviewing.waitFor({ timeout: 60_000 });
  assert.equal(await reviewing.locator('.summary-text').innerText(), 'Made it.');
  assert.equal(await reviewing.locator('.needs-input-line').count(), 0);
  assert.equal(repo.git('show', 'grace/made:made.txt'), 'x', 'the allowed call ran in grace’s worktree');
  await status.filter({ hasNotText: /waiting for you/ }).waitFor({ timeout: 10_000 });
  await workbench.screenshot('6-allowed-review');
});
