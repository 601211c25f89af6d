// Two windows on one workspace (issue 30 item 5), in a real VS Code (code-server + chromium):
// a notification the first window showed is not raised again by a second window opened later;
// the second window's Take Over is in the status bar, visible without hovering over a view; the
// owner's Hand Over question stays in the status bar after its toast is closed, until it is answered.
// Screenshots: test-results/notices-*.png.
// Run: node --import tsx --test test/e2e/ownershipNotices.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { pollUntil } from '../support/pollUntil';
import { ensureBuilt, makeTestRepo, type TestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

const WORKERS = 'Workers';
const REVIEW_READY = /"Add a changelog" is ready for review \(ada\)/;
let scratch: string;
let repo: TestRepo;
let first: Workbench;
let second: Workbench | undefined;

/** The pid of the process that owns the workspace, once it serves requests. */
function ownerPid(): number | undefined {
  try {
    const lock = JSON.parse(readFileSync(join(repo.dir, '.foreman', 'owner.lock'), 'utf8')) as { pid: number; endpoint?: string };
    return lock.endpoint ? lock.pid : undefined;
  } catch {
    return undefined;
  }
}

before(
  async () => {
    ensureBuilt();
    scratch = mkdtempSync(join(tmpdir(), 'foreman-notices-'));
    repo = makeTestRepo(join(scratch, 'repo'), { 'README.md': '# Notices\n' });
    repo.foreman('init');
    repo.foreman('worker', 'add', 'ada', '--agent', 'demo');
    repo.foreman('task', 'add', 'Add a changelog', '--prompt', 'write CHANGELOG.md Nothing yet.\ncommit Add a changelog');
    first = await launchWorkbench({ folder: repo.dir, extensionPath: repoRoot, name: 'notices' });
  },
  { timeout: 240_000 },
);

after(async () => {
  await second?.close();
  await first?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('a notification the owner window showed is not raised again by a second window', { timeout: 180_000 }, async () => {
  // The owner window launches the demo agent, which finishes and waits for review.
  await first.notifications().filter({ hasText: REVIEW_READY }).first().waitFor({ timeout: 120_000 });
  second = await first.openWindow();
  await second.clickActivityBar('Foreman');
  // The second window has read the state (the row says IN_REVIEW) and compared it with nothing before:
  // without the workspace's record of what was shown, this is when it would raise the review again.
  await second
    .treeRow(WORKERS, 'ada')
    .locator('.label-description', { hasText: /^IN_REVIEW/ })
    .waitFor({ timeout: 60_000 });
  await second.statusBarItem('foreman.liveness').filter({ hasText: /review/ }).waitFor();
  assert.equal(await second.notifications().filter({ hasText: REVIEW_READY }).count(), 0, 'the second window raised the review again');
  await second.screenshot('second-window');
});

test('Take Over sits in the status bar; the owner is asked until it answers, even after closing the toast', { timeout: 180_000 }, async () => {
  assert.ok(second, 'the first test did not open a second window');
  const firstPid = ownerPid();
  // Visible as it is, with no pointer over the Workers view.
  const takeOver = second.statusBarItem('foreman.takeOver');
  await takeOver.filter({ hasText: 'Read-only · Take Over' }).waitFor();
  await takeOver.click();
  // The owner's window is attached: it asks its person, and the asking window hears why not yet.
  const ask = first.notifications().filter({ hasText: /another window \(pid \d+\) asks to take over this workspace/ });
  await ask.first().waitFor({ timeout: 60_000 });
  const handOver = first.statusBarItem('foreman.handOver');
  await handOver.filter({ hasText: 'Hand Over repo?' }).waitFor();
  // Closing the toast answers nothing: the question stays in the status bar.
  await ask.first().hover();
  await ask.first().locator('.codicon-notifications-clear').click();
  await ask.first().waitFor({ state: 'detached' });
  await second
    .notifications()
    .filter({ hasText: /could not take over: the window that owns it is open and in use/ })
    .first()
    .waitFor({ timeout: 60_000 });
  assert.equal(await handOver.isVisible(), true, 'the Hand Over question went away unanswered');
  await first.screenshot('hand-over-waiting');
  // The status item asks again; "Hand Over" then, after the asking window gave up waiting, still hands over.
  await handOver.click();
  await ask.first().getByRole('button', { name: 'Hand Over' }).click();
  await handOver.waitFor({ state: 'hidden' });
  await pollUntil(() => (ownerPid() !== undefined && ownerPid() !== firstPid ? true : undefined), {
    what: 'the second window to own the workspace',
    timeoutMs: 60_000,
    intervalMs: 200,
  });
  await second.statusBarItem('foreman.takeOver').waitFor({ state: 'hidden' });
  await first.statusBarItem('foreman.takeOver').filter({ hasText: 'Read-only · Take Over' }).waitFor();
});
