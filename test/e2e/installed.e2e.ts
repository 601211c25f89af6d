// What users run: the packaged .vsix (npm run package: a production build, minified), installed into
// a clean code-server with `--install-extension`, with nothing of the checkout on the extension's
// side. On a git repository without Foreman: Initialise from the palette; a terminal VS Code opens
// has `foreman` on PATH (the extension's EnvironmentVariableCollection) and adds a demo worker and a
// task with it; the demo agent reaches review and Show Agent Log opens its run; Approve and Merge
// from the row; the dashboard shows the worker; *Install CLI on PATH* links the command. The
// installed copy's CLI then runs a workspace on the PostgreSQL store (dist/foreman-pg.js, once left
// out of the package) against a server this test starts.
// Screenshots: test-results/installed-*.png.
// Run: node --import tsx --test test/e2e/installed.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { pollUntil } from '../support/pollUntil';
import { type TestPostgres, startPostgres } from '../support/postgres';
import { makeTestRepo, type TestRepo } from './support/repo';
import { launchWorkbench, type Workbench } from './support/workbench';

const WORKERS = 'Workers';
let scratch: string;
let home: string;
let repo: TestRepo;
let workbench: Workbench;
let postgres: TestPostgres | undefined;

const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const rowText = (label: string) => workbench.treeRow(WORKERS, label).locator('.label-description');

before(
  async () => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-installed-')));
    home = join(scratch, 'home');
    mkdirSync(home);
    const vsix = join(scratch, 'foreman.vsix');
    const packaged = spawnSync(process.execPath, [join(repoRoot, 'scripts/package.mjs'), '--out', vsix], { encoding: 'utf8' });
    assert.equal(packaged.status, 0, `npm run package failed:\n${packaged.stdout}${packaged.stderr}`);
    repo = makeTestRepo(join(scratch, 'app'), { 'README.md': '# App\n' });
    // HOME is the test's own: Install CLI on PATH writes into ~/.local/bin.
    workbench = await launchWorkbench({ folder: repo.dir, vsix, name: 'installed', env: { HOME: home } });
  },
  { timeout: 600_000 },
);

after(async () => {
  await workbench?.close();
  await postgres?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the installed extension is a copy, not a link to the checkout, and holds no source maps', () => {
  const folder = workbench.installedFolder;
  assert.ok(folder, 'launched from the .vsix');
  assert.equal(lstatSync(folder).isSymbolicLink(), false, `${folder} links somewhere instead of holding the installed copy`);
  assert.notEqual(realpathSync(folder), realpathSync(repoRoot));
  assert.ok(existsSync(join(folder, 'dist', 'extension.js')));
  assert.equal(existsSync(join(folder, 'dist', 'extension.js.map')), false);
  assert.equal(existsSync(join(folder, 'src')), false);
});

test('Initialise from the palette, then a VS Code terminal runs `foreman` from the installed extension', { timeout: 180_000 }, async () => {
  // The extension's contributions are there once its view container shows (the host may be slow to scan).
  await workbench.clickActivityBar('Foreman');
  await workbench.runCommand('Foreman: Initialise');
  await workbench.statusBarItem('foreman.liveness').waitFor({ state: 'visible', timeout: 60_000 });
  assert.ok(existsSync(join(repo.dir, '.foreman')));
  await workbench.runCommand('Terminal: Create New Terminal');
  const terminal = workbench.page.locator('.terminal-wrapper.active .xterm');
  await terminal.waitFor({ timeout: 30_000 });
  await terminal.click();
  const line =
    'foreman --version > version.txt; foreman worker add w1 --agent demo; foreman task add Hello --id hello; echo done > typed.txt';
  await workbench.page.keyboard.type(line);
  await workbench.page.keyboard.press('Enter');
  await pollUntil(() => existsSync(join(repo.dir, 'typed.txt')) || undefined, { what: 'the terminal to run the line', timeoutMs: 60_000 });
  assert.match(readFileSync(join(repo.dir, 'version.txt'), 'utf8'), new RegExp(version.replace(/\./g, '\\.')));
  await workbench.screenshot('1-terminal');
});

test('the demo worker takes the task to review; Approve and Merge from the row land it on main', { timeout: 180_000 }, async () => {
  await workbench.clickActivityBar('Foreman');
  await rowText('w1')
    .filter({ hasText: /^IN_REVIEW · Hello/ })
    .waitFor({ timeout: 90_000 });
  // w1 is the only worker holding a task: Show Agent Log opens its run at once.
  await workbench.runCommand('Foreman: Show Agent Log');
  await workbench.page.locator('.tabs-container .tab', { hasText: /attempt-1/ }).waitFor({ timeout: 30_000 });
  await workbench.screenshot('2-agent-log');
  await workbench.clickRowAction(WORKERS, 'w1', 'Approve');
  await rowText('w1')
    .filter({ hasText: /^APPROVED · Hello/ })
    .waitFor({ timeout: 30_000 });
  await workbench.clickRowAction(WORKERS, 'w1', 'Merge');
  await workbench
    .notifications()
    .filter({ hasText: /Foreman: merged "Hello"/ })
    .waitFor({ timeout: 60_000 });
  assert.match(repo.git('show', 'main:demo/hello.md'), /# hello/);
  await workbench.screenshot('3-merged');
});

test('the dashboard shows the worker', { timeout: 120_000 }, async () => {
  await workbench.runCommand('Foreman: Open Dashboard');
  const dashboard = workbench.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await dashboard.locator('.worker-card[data-worker="w1"]').waitFor({ timeout: 30_000 });
  await workbench.screenshot('4-dashboard');
});

test('Install CLI on PATH links the installed `foreman` into ~/.local/bin', { timeout: 60_000 }, async () => {
  await workbench.runCommand('Foreman: Install CLI on PATH');
  await workbench
    .notifications()
    .filter({ hasText: /Foreman: `foreman` is installed at/ })
    .waitFor({ timeout: 30_000 });
  const link = join(home, '.local', 'bin', 'foreman');
  assert.equal(readlinkSync(link), join(workbench.installedFolder!, 'bin', 'foreman'));
  assert.match(execFileSync(link, ['--version']).toString(), new RegExp(version.replace(/\./g, '\\.')));
});

test("the installed copy's CLI runs a workspace on the PostgreSQL store", { timeout: 120_000 }, async () => {
  postgres = await startPostgres();
  const team = makeTestRepo(join(scratch, 'team'), { 'README.md': '# Team\n' });
  const cli = join(workbench.installedFolder!, 'bin', 'foreman');
  const env = { ...process.env, PGPASSWORD: postgres.password, FOREMAN_HOST: 'installed-e2e' };
  const url = postgres.url.replace(`:${postgres.password}@`, '@');
  const run = (...args: string[]) => execFileSync(cli, [...args, '--dir', team.dir], { env }).toString();
  run('init', '--store', url);
  run('worker', 'add', 'p1');
  run('task', 'add', 'Shared', '--id', 'shared');
  const status = JSON.parse(run('status', '--json')) as { tasks: Array<{ id: string }>; workers: Array<{ id: string }> };
  assert.deepEqual(
    status.workers.map((worker) => worker.id),
    ['p1'],
  );
  assert.deepEqual(
    status.tasks.map((task) => task.id),
    ['shared'],
  );
  assert.equal(existsSync(join(team.dir, '.foreman', 'foreman.db')), false, 'the state lives in PostgreSQL, not in .foreman/');
});
