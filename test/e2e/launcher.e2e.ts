// `npm start` leaves nothing running however its own process ends. The real launcher
// (scripts/start.mjs) starts the real code-server; a real chromium opens the printed URL so an
// extension host exists; then the launcher alone is killed (SIGKILL: no handler runs; SIGTERM: the
// polite way; and npm itself under `npm start`) and /proc must show every process it had started
// gone: open.mjs, code-server, the extension host, the watchdog. Also: the demo repository is made
// outside the project.
// Run: node --import tsx --test test/e2e/launcher.e2e.ts   (after node scripts/vscode/provision.mjs)
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, test } from 'node:test';
import { defaultDemoDir } from '../../scripts/demoRepo.mjs';
import { launchChromium } from '../../scripts/vscode/browser.mjs';
import { freePort } from '../../scripts/vscode/codeServer.mjs';
import { repoRoot } from '../../scripts/vscode/paths.mjs';
import { pollUntil } from '../support/pollUntil';

const scratch = mkdtempSync(join(tmpdir(), 'foreman-launcher-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly state: string;
  readonly command: string;
}

/** Every process on the machine, from /proc (a zombie counts as gone: it runs nothing). */
function processes(): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      found.push({ pid: Number(name), ppid: Number(ppid), state: state!, command });
    } catch {
      // It exited while we looked.
    }
  }
  return found;
}

/** The launcher and everything below it, by parent links. */
function descendants(root: number): ProcessInfo[] {
  const all = processes();
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const info of all) if (tree.has(info.ppid) && !tree.has(info.pid)) grew = tree.add(info.pid).size > 0;
  }
  return all.filter((info) => tree.has(info.pid));
}

const running = (pid: number) => processes().some((info) => info.pid === pid && info.state !== 'Z');

/** Starts `node scripts/start.mjs` (or `npm start`) with a demo, a profile and a port of this test; resolves with the URL it prints. */
async function startLauncher(name: string, viaNpm: boolean): Promise<{ launcher: ChildProcess; url: string; output: () => string }> {
  const port = await freePort();
  const [file, args] = viaNpm ? ['npm', ['start']] : [process.execPath, [join(repoRoot, 'scripts', 'start.mjs')]];
  const launcher = spawn(file, args, {
    cwd: repoRoot,
    // Its own group only so that a failed test can still clean up everything with one kill.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      FOREMAN_USE_CODE_SERVER: '1',
      FOREMAN_VSCODE_PORT: String(port),
      FOREMAN_DEMO_DIR: join(scratch, `${name}-demo`),
      FOREMAN_OPEN_PROFILE: join(scratch, `${name}-profile`),
    },
  });
  let text = '';
  launcher.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  launcher.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const url = await pollUntil(
    () => /Foreman is running in VS Code at (\S+)/.exec(text)?.[1] ?? (launcher.exitCode !== null ? 'exited' : undefined),
    { what: 'the launcher to print its URL', timeoutMs: 180_000, intervalMs: 250 },
  );
  assert.notEqual(url, 'exited', `the launcher exited early:\n${text}`);
  return { launcher, url, output: () => text };
}

async function killLeavesNothing(name: string, signal: NodeJS.Signals, viaNpm = false): Promise<void> {
  const { launcher, url, output } = await startLauncher(name, viaNpm);
  const browser = await launchChromium();
  let started: ProcessInfo[] = [];
  try {
    const page = await browser.newPage();
    await page.goto(url);
    await page.locator('.monaco-workbench .part.sidebar').waitFor({ timeout: 90_000 });
    // The window's extension host is the process the issue found left behind: wait until it runs.
    started = await pollUntil(
      () => {
        const tree = descendants(launcher.pid!);
        return tree.some((info) => info.command.includes('extensionHost')) ? tree : undefined;
      },
      { what: 'the extension host', timeoutMs: 90_000, intervalMs: 250 },
    );
    assert.ok(
      started.some((info) => info.command.includes('groupWatchdog.mjs')),
      'no watchdog among the launched processes',
    );
    // A lost tab's extension host is kept 30 s, not code-server's 3 hours.
    assert.ok(
      started.some((info) => info.command.includes('--reconnection-grace-time 30')),
      'code-server runs with its default reconnection grace',
    );
    process.kill(launcher.pid!, signal);
    const left = await pollUntil(
      () => {
        const alive = started.filter((info) => running(info.pid));
        return alive.length === 0 ? alive : undefined;
      },
      { what: `every launched process to end after ${signal}`, timeoutMs: 30_000, intervalMs: 250 },
    ).catch(() => started.filter((info) => running(info.pid)));
    assert.deepEqual(
      left.map((info) => `${info.pid} ${info.command}`),
      [],
      `still running after ${signal} of the launcher:\n${output()}`,
    );
  } finally {
    await browser.close();
    for (const info of started) if (running(info.pid)) process.kill(info.pid, 'SIGKILL');
  }
}

test('a SIGKILL of the launcher alone leaves no process behind', { timeout: 300_000 }, () => killLeavesNothing('sigkill', 'SIGKILL'));

test('a SIGTERM of the launcher alone leaves no process behind', { timeout: 300_000 }, () => killLeavesNothing('sigterm', 'SIGTERM'));

test('a SIGKILL of `npm start` itself (npm, whose shell outlives it) leaves no process behind', { timeout: 300_000 }, () =>
  killLeavesNothing('npm', 'SIGKILL', true),
);

test('the demo repository is made outside the project folder', () => {
  const demo = defaultDemoDir();
  assert.ok(relative(repoRoot, demo).startsWith('..'), `${demo} is inside ${repoRoot}`);
  // The launcher runs above made their demos where FOREMAN_DEMO_DIR said, with Foreman initialised.
  assert.ok(existsSync(join(scratch, 'sigkill-demo', '.foreman')));
});
