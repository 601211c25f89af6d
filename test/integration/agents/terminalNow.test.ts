/**
 * The NOW column once an agent runs in a terminal (issue 29): Foreman's own step ("setting up the
 * worktree") is over when the agent is launched, and a terminal's heartbeats carry no words, so the
 * worker's activity must say the agent started rather than keep the setup's. A real owner (openOwner)
 * with agents on, a terminal stand-in that runs what a terminal would as a child process (as in
 * terminalAgents.test.ts), a profile in terminal mode, and the engine's own status read.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CommandInput, CommandName } from '../../../src/core/requests';
import { parseCommand } from '../../../src/core/requests';
import { openOwner } from '../../../src/host';
import type { AgentTerminal, TerminalHost, TerminalLaunch } from '../../../src/infra/agents/terminalAgents';
import { initWorkspace } from '../../../src/infra/workspace/init';
import { pollUntil } from '../../support/pollUntil';
import { git, makeRepo } from './agentFixtures';

class ProcessTerminalHost implements TerminalHost {
  open(launch: TerminalLaunch): AgentTerminal {
    const child = spawn(launch.executable, [...launch.args], { cwd: launch.cwd, env: { ...launch.env }, stdio: 'ignore', shell: false });
    const exited = new Promise<number | undefined>((resolve) => child.once('exit', (code) => resolve(code ?? undefined)));
    return { exited, close: () => void child.kill('SIGTERM') };
  }
}

test('an agent in a terminal: the activity says it started, not "setting up the worktree"', { timeout: 60_000 }, async () => {
  const repo = makeRepo();
  git(repo, 'config', 'user.name', 'Test User');
  git(repo, 'config', 'user.email', 'test@example.com');
  assert.equal((await initWorkspace(repo)).ok, true);
  const worktreeRoot = realpathSync(mkdtempSync(join(tmpdir(), 'foreman-terminal-now-')));
  writeFileSync(join(repo, '.foreman', 'settings.json'), JSON.stringify({ worktreeRoot }));
  const script = join(worktreeRoot, 'agent.js');
  // Works for a while without a word, as an agent in a terminal does (its output stays there).
  writeFileSync(script, 'setTimeout(() => process.exit(0), 20000);\n');
  const opened = await openOwner(repo, {
    role: 'serve',
    launchAgents: true,
    terminalHost: new ProcessTerminalHost(),
    agentProfiles: () => ({ term: { mode: 'terminal', command: process.execPath, args: [script] } }),
  });
  assert.ok(opened.ok, opened.ok ? '' : opened.message);
  const owner = opened.value;
  const run = async <C extends CommandName>(command: C, args: CommandInput<C>) => {
    const parsed = parseCommand(command, args, { actor: 'test' });
    if (!parsed.ok) throw new Error(parsed.message);
    const result = await owner.execute(parsed.request);
    assert.ok(result.ok, result.ok ? '' : result.message);
    return result.value;
  };
  try {
    await owner.start();
    await run('worker.add', { id: 'ada', agent: 'term' });
    await run('task.add', { id: 'quiet', title: 'Quiet work' });
    const ada = await pollUntil(
      () => {
        const status = owner.engine.query({ command: 'status', args: {}, actor: 'test' });
        const worker = status.ok ? status.value.workers.find((w) => w.id === 'ada') : undefined;
        return worker?.state === 'WORKING' && worker.activity?.text !== 'setting up the worktree' && worker.activity ? worker : undefined;
      },
      { what: 'ada to work with its agent started', timeoutMs: 20_000 },
    );
    assert.equal(ada.activity?.text, 'started term in a terminal');
  } finally {
    await owner.stop();
  }
});
