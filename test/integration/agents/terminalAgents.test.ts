/**
 * TerminalAgents: agents whose profile runs in a terminal. VS Code's terminal is out of reach here,
 * so the host is a stand-in that runs exactly what a terminal would (the executable with its argv,
 * cwd and environment, no shell) as a real child process; the UI test covers the real terminal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type AgentTerminal, type TerminalHost, type TerminalLaunch, TerminalAgents } from '../../../src/infra/agents/terminalAgents';
import { fakeForemanCli, readText, scriptProfile, tempDir } from './agentFixtures';

/** Runs each "terminal" as a child process; records what it was asked to open. */
class ProcessTerminalHost implements TerminalHost {
  readonly opened: TerminalLaunch[] = [];

  open(launch: TerminalLaunch): AgentTerminal {
    this.opened.push(launch);
    const child = spawn(launch.executable, [...launch.args], { cwd: launch.cwd, env: { ...launch.env }, stdio: 'ignore', shell: false });
    let closedByUs = false;
    const exited = new Promise<number | undefined>((resolve) =>
      child.once('exit', (code) => resolve(closedByUs ? undefined : (code ?? undefined))),
    );
    return {
      exited,
      close: () => {
        closedByUs = true;
        child.kill('SIGTERM');
      },
    };
  }
}

function setup() {
  const host = new ProcessTerminalHost();
  const beats: string[] = [];
  const logDir = tempDir('logs');
  const agents = new TerminalAgents(host, {
    logDir,
    cliBinDir: fakeForemanCli().binDir,
    heartbeatEveryMs: 40,
    onHeartbeat: (run) => beats.push(`${run.workerId}#${run.attempt}`),
  });
  return { host, beats, logDir, agents };
}

test('an agent in a terminal gets the argv, worktree and FOREMAN_* environment, is heartbeaten for while it runs, and its exit code decides', async () => {
  const { host, beats, logDir, agents } = setup();
  const worktree = tempDir('worktree');
  const profile = scriptProfile(
    `const fs = require('node:fs');
     fs.writeFileSync('seen.json', JSON.stringify({ argv: process.argv.slice(2), worker: process.env.FOREMAN_WORKER_ID, task: process.env.FOREMAN_TASK_ID, prompt: fs.readFileSync(process.argv[2], 'utf8') }));
     setTimeout(() => process.exit(0), 300);`,
    ['{promptFile}', '{branch}'],
    { mode: 'terminal' },
  );
  const launched = agents.launch({
    workerId: 'ada',
    taskId: 'fix-login',
    attempt: 2,
    branch: 'ada/fix-login',
    worktree,
    prompt: 'Fix the login',
    profile,
  });
  assert.ok(launched.ok, launched.ok ? '' : launched.message);
  assert.deepEqual(agents.signals('ada'), { alive: true });
  assert.equal(host.opened[0]!.name, 'Foreman agent: ada · fix-login (attempt 2)');

  const exit = await launched.value.exited;
  assert.equal(exit.code, 0);
  assert.match(exit.reason, /exited 0/);
  const seen = JSON.parse(readText(join(worktree, 'seen.json'))) as { argv: string[]; worker: string; task: string; prompt: string };
  assert.equal(seen.worker, 'ada');
  assert.equal(seen.task, 'fix-login');
  assert.equal(seen.argv[1], 'ada/fix-login');
  assert.equal(seen.prompt, 'Fix the login');
  assert.ok(beats.length >= 3, `heartbeats while it ran: ${beats.length}`);
  const count = beats.length;
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(beats.length, count, 'no heartbeat after the terminal ended');
  assert.equal(agents.has('ada'), false);
  assert.deepEqual(agents.signals('ada'), { alive: false, exitedReason: exit.reason });
  const log = readText(join(logDir, 'fix-login', 'attempt-2.log'));
  assert.match(log, /runs in the terminal "Foreman agent: ada · fix-login \(attempt 2\)"/);
  assert.match(log, /exited 0/);
});

test('cancel closes the terminal; a second launch for a busy worker is refused', async () => {
  const { host, agents } = setup();
  const worktree = tempDir('worktree');
  const profile = scriptProfile('setInterval(() => {}, 1000);', [], { mode: 'terminal' });
  const first = agents.launch({ workerId: 'grace', taskId: 'long', attempt: 1, branch: 'grace/long', worktree, prompt: 'p', profile });
  assert.ok(first.ok);
  const second = agents.launch({ workerId: 'grace', taskId: 'other', attempt: 1, branch: 'grace/other', worktree, prompt: 'p', profile });
  assert.ok(!second.ok);
  assert.equal(second.code, 'agentAlreadyRunning');
  assert.equal(host.opened.length, 1);

  const exit = await agents.cancel('grace');
  assert.ok(exit);
  assert.equal(exit.code, null);
  assert.match(exit.reason, /closed by Foreman \(cancel\)/);
  assert.equal(await agents.cancel('grace'), undefined, 'nothing left to cancel');
});

test('a refused plan opens no terminal and writes nothing', () => {
  const { host, logDir, agents } = setup();
  const profile = scriptProfile('', [], { mode: 'terminal' });
  const refused = agents.launch({
    workerId: 'ada',
    taskId: 't1',
    attempt: 1,
    branch: 'ada/t1',
    worktree: join(tempDir('x'), 'missing'),
    prompt: 'p',
    profile,
  });
  assert.ok(!refused.ok);
  assert.equal(refused.code, 'worktreeMissing');
  assert.equal(host.opened.length, 0);
  assert.equal(existsSync(join(logDir, 't1')), false);
});

test('a terminal the host cannot open is a refused launch, not a crash', () => {
  const failing: TerminalHost = {
    open: () => {
      throw new Error('no terminal here');
    },
  };
  const agents = new TerminalAgents(failing, {
    logDir: tempDir('logs'),
    cliBinDir: fakeForemanCli().binDir,
    heartbeatEveryMs: 40,
    onHeartbeat: () => undefined,
  });
  const profile = scriptProfile('', [], { mode: 'terminal' });
  const launched = agents.launch({
    workerId: 'ada',
    taskId: 't1',
    attempt: 1,
    branch: 'ada/t1',
    worktree: tempDir('worktree'),
    prompt: 'p',
    profile,
  });
  assert.ok(!launched.ok);
  assert.equal(launched.code, 'terminalFailed');
  assert.match(launched.message, /no terminal here/);
  assert.equal(agents.has('ada'), false);
});
