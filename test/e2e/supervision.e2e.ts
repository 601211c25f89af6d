// UI test: how a person sees Foreman supervise the real Claude Code CLI (devDependency) in a real
// VS Code window (code-server + Debian chromium), against the scripted model server. One window:
//   1. ada's model answers with a 429 whose retry-after Claude will not wait out: the worker is
//      PAUSED — the Workers row says why and at what time it resumes, the status bar counts down,
//      the dashboard card says why and counts down — then resumes the same session by itself and
//      reaches review on attempt 1;
//   2. bea runs `sleep 8`; a message sent from its dashboard card (the Send message dialog) reaches
//      the model in the next request of the same run, and the run reaches review;
//   3. the silence bound is lowered to its minimum in the folder's settings and Foreman reopened
//      from the notification that offers it; cy's model never answers: STALE with "no output from
//      the agent for …" on the card, in the Workers row and under Needs you — still once the crew
//      has stopped the stalled agent.
// The agent profiles go in the remote machine settings (see realAgent.e2e.ts). Claude keeps its
// default retries. Screenshots: test-results/supervision-*.png.
// Run: node --import tsx --test test/e2e/supervision.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { pollUntil } from '../support/pollUntil';
import type { ScriptedModel } from '../support/scriptedModel';
import { openRealClaudeWorkbench, type RealClaudeWorkbench } from './support/realClaudeWorkbench';
import type { TestRepo } from './support/repo';
import type { Workbench } from './support/workbench';

/** Long enough to look at the pause in three places on a loaded machine, short enough to wait out. */
const pauseMinutes = 0.3;
const message = 'Please also mention the weather.';
/** Long enough to open the dialog and type while it runs, on a loaded machine. */
const sleepCommand = 'sleep 8 && echo sunny > weather.txt';

let opened: RealClaudeWorkbench | undefined;
let model: ScriptedModel;
let repo: TestRepo;
let workbench: Workbench;
let dashboard: FrameLocator;
const cli = (...args: string[]): string => repo.foreman(...args);
const card = (worker: string) => dashboard.locator(`.worker-card[data-worker="${worker}"]`);
const description = (worker: string) => workbench.treeRow('Workers', worker).locator('.label-description');

interface CliStatus {
  readonly workers: Array<{ id: string; state: string; pausedUntil?: number; livenessReason: string; lastError: string | null }>;
  readonly tasks: Array<{ id: string; attempt: number; status: string }>;
}
const status = (): CliStatus => JSON.parse(cli('status', '--json')) as CliStatus;

before(
  async () => {
    opened = await openRealClaudeWorkbench({
      name: 'supervision',
      repo: { folder: 'weather', files: { 'README.md': '# Weather\n' } },
      settings: {
        'foreman.limits.pauseMinutes': pauseMinutes,
        // Not the test's subject until the third test (which lowers it): a slow start on a loaded machine is not a stall.
        'foreman.heartbeat.agentSilenceSeconds': 120,
        // A STALE worker stays STALE (no retry taking the next steps of the script).
        'foreman.heartbeat.deadSeconds': 600,
      },
    });
    ({ model, repo, workbench, dashboard } = opened);
    await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 90_000 });
    await workbench.clickActivityBar('Foreman');
    await workbench.treeRow('Workers', 'ada').waitFor();
    await workbench.runCommand('Foreman: Open Dashboard');
    await card('ada').waitFor({ timeout: 30_000 });
  },
  { timeout: 180_000 },
);

after(async () => {
  await opened?.close();
});

test('a usage limit pauses the worker with its countdown everywhere, then it resumes and reaches review', { timeout: 150_000 }, async () => {
  model.play([{ fail: 429, retryAfterSeconds: 3600 }, { bash: 'echo resumed > resumed.txt' }, { text: 'Resumed and wrote resumed.txt.' }]);
  cli('task', 'add', 'Limited', '--id', 'limited', '--prompt', 'Write resumed.txt.');

  // The row: why, and the time of day it goes on (no countdown in a row: it would redraw it every tick).
  await description('ada')
    .filter({ hasText: /^PAUSED · Limited · rate limited \(HTTP 429\) · resumes at \d\d:\d\d:\d\d/ })
    .waitFor({ timeout: 60_000 });
  const bar = workbench.statusBarItem('foreman.liveness');
  await bar.filter({ hasText: /1 paused \(resumes in \d+s\)/ }).waitFor({ timeout: 10_000 });
  const line = dashboard.locator('.worker-card.state-paused[data-worker="ada"] .paused-line');
  await line.waitFor({ timeout: 10_000 });
  assert.match(await line.innerText(), /^paused: rate limited \(HTTP 429\) — resumes at \d\d:\d\d:\d\d \(in \d+s\)$/);
  const paused = status();
  const ada = paused.workers.find((worker) => worker.id === 'ada');
  assert.equal(ada?.state, 'PAUSED');
  assert.ok(ada?.pausedUntil && ada.pausedUntil > Date.now(), 'status --json says when it resumes');
  assert.equal(paused.tasks.find((task) => task.id === 'limited')?.attempt, 1);
  await workbench.screenshot('1-paused');

  // The monitor resumes it at the reset: the same session goes on, no attempt spent.
  const reviewing = dashboard.locator('.worker-card.state-in_review[data-worker="ada"]');
  await reviewing.waitFor({ timeout: 90_000 });
  assert.equal(await reviewing.locator('.summary-text').innerText(), 'Resumed and wrote resumed.txt. (Foreman: continued its session.)');
  await description('ada').filter({ hasText: /^IN_REVIEW · Limited$/ }).waitFor({ timeout: 10_000 });
  await bar.filter({ hasNotText: /paused/ }).waitFor({ timeout: 10_000 });
  assert.equal(status().tasks.find((task) => task.id === 'limited')?.attempt, 1, 'the pause spent no attempt');
  assert.equal(repo.git('show', 'ada/limited:resumed.txt'), 'resumed');
  await workbench.screenshot('2-resumed-review');
});

test('a message sent from the dashboard reaches the running agent’s model, and the run reaches review', { timeout: 120_000 }, async () => {
  cli('worker', 'add', 'bea', '--agent', 'claude');
  // A run that changes nothing fails ("finished without changes"): the command leaves a file.
  model.play([{ bash: sleepCommand }, { text: 'Heard you: it is sunny.' }]);
  cli('task', 'add', 'Talk', '--id', 'talk', '--prompt', 'Wait a little, then answer.');
  // bea, the one idle worker (ada waits in review); whoever runs it, the card is found by what it does.
  const running = dashboard.locator('.worker-card.state-working').filter({
    has: dashboard.locator('.activity-text', { hasText: `Bash: ${sleepCommand}` }),
  });
  await running.waitFor({ timeout: 60_000 });
  const worker = (await running.getAttribute('data-worker')) ?? '';

  const sentAt = model.requests.length;
  await card(worker).locator('vscode-button[data-action="sendMessage"]').click();
  const dialog = dashboard.locator('dialog.note-dialog[aria-label="Send message"]');
  await dialog.waitFor({ timeout: 10_000 });
  assert.equal(await dialog.locator('h2').innerText(), `Send message: ${worker}`);
  await dialog.locator('vscode-text-area textarea').fill(message);
  await workbench.screenshot('3-send-message');
  await dialog.locator('vscode-button', { hasText: 'Send' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 10_000 });

  const reviewing = dashboard.locator(`.worker-card.state-in_review[data-worker="${worker}"]`);
  await reviewing.waitFor({ timeout: 60_000 });
  assert.equal(await reviewing.locator('.summary-text').innerText(), 'Heard you: it is sunny.');
  const carrying = model.requests.slice(sentAt).filter((request) => request.mainLoop && JSON.stringify(request.body).includes(message));
  assert.ok(carrying.length > 0, 'a later request of the run carries the message to the model');
  assert.deepEqual(carrying[0]!.step, { text: 'Heard you: it is sunny.' }, 'the very next step of the same conversation');
  assert.equal(repo.git('show', `${worker}/talk:weather.txt`), 'sunny');
  await workbench.screenshot('4-message-review');
});

test('a silent agent is STALE with the reason, once the silence bound is lowered and Foreman reopened', { timeout: 150_000 }, async () => {
  mkdirSync(join(repo.dir, '.vscode'), { recursive: true });
  writeFileSync(join(repo.dir, '.vscode', 'settings.json'), `${JSON.stringify({ 'foreman.heartbeat.agentSilenceSeconds': 5 })}\n`);
  const offer = workbench.notifications().filter({ hasText: /the changed settings apply when Foreman reopens/ });
  await offer.first().waitFor({ timeout: 30_000 });
  await offer.first().getByRole('button', { name: 'Reopen Now' }).click();
  await card('ada').waitFor({ timeout: 60_000 });

  cli('worker', 'add', 'cy', '--agent', 'claude');
  model.play([{ hang: true }]);
  cli('task', 'add', 'Silent', '--id', 'silent', '--prompt', 'Say anything.');

  const stale = dashboard.locator('.worker-card.state-stale[data-worker="cy"]');
  await stale.waitFor({ timeout: 60_000 });
  const cy = () => status().workers.find((worker) => worker.id === 'cy');
  assert.equal(cy()?.state, 'STALE');
  assert.match(cy()?.lastError ?? '', /^no output from the agent for \d+s/);
  // The crew stops a stalled agent (its work kept); from then on its heartbeat says nothing of why.
  await pollUntil(() => !/process alive/.test(cy()?.livenessReason ?? ''), {
    what: 'the crew to stop the stalled agent',
    timeoutMs: 30_000,
    intervalMs: 500,
    detail: () => `its heartbeat still says: ${cy()?.livenessReason ?? ''}`,
  });
  const why = /no output from the agent for \d+s/;
  await stale.locator('.reason', { hasText: why }).waitFor({ timeout: 10_000 });
  await description('cy').filter({ hasText: /^STALE · Silent · no output from the agent for \d+s/ }).waitFor({ timeout: 10_000 });
  await dashboard.locator('.attention-item', { hasText: why }).filter({ hasText: 'Silent' }).waitFor({ timeout: 10_000 });
  await workbench.statusBarItem('foreman.liveness').filter({ hasText: /1 stale/ }).waitFor({ timeout: 10_000 });
  await workbench.screenshot('5-stale');
});
