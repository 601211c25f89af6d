/**
 * A record in `.foreman/agents/` names a pid, and by the time the next owner reads it that pid may
 * be anything (issue 10, item 3). The next `foreman serve` signals a recorded group only when the
 * live process is proven to be the agent: an unrelated process whose pid is written there (the
 * issue's `setsid sleep 600 &`) survives, while a real agent orphaned by a killed serve is still
 * stopped. Real processes throughout; the checks read /proc, so they run on Linux only.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { type AgentIdentity, identify, verifyAgent } from '../../../src/infra/agents/agentIdentity';
import { type CrewRepo, groupAlive, makeCrew, processAlive, sandboxPath } from '../crew/crewHarness';
import { pollUntil } from '../../support/pollUntil';

const skip = process.platform === 'linux' ? false : 'reads /proc (Linux only)';

const started: ChildProcess[] = [];
after(() => {
  for (const child of started) if (child.pid && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
});

/** `setsid sleep 600`: its own session and process group (pgid = pid), like an agent, but not one. */
function unrelatedProcess(options: { cwd?: string; env?: Record<string, string>; detached?: boolean } = {}): number {
  const child = spawn('sleep', ['600'], {
    detached: options.detached ?? true,
    stdio: 'ignore',
    cwd: options.cwd ?? sandboxPath(''),
    env: options.env ?? { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
  });
  child.unref();
  started.push(child);
  assert.ok(child.pid, 'sleep started');
  return child.pid;
}

function folder(name: string): string {
  const path = sandboxPath(name);
  mkdirSync(path, { recursive: true });
  return realpathSync(path);
}

function writeRecord(crew: CrewRepo, workerId: string, pid: number, identity?: AgentIdentity): void {
  const dir = join(crew.root, '.foreman', 'agents');
  mkdirSync(dir, { recursive: true });
  const record = { workerId, taskId: 'T1', attempt: 1, pid, ...(identity ? { identity } : {}) };
  writeFileSync(join(dir, `${workerId}.json`), JSON.stringify(record));
}

describe('verifying an agent process by more than its pid', { skip }, () => {
  it('accepts the process it identified, and nothing that differs from it', () => {
    const worktree = folder('worktree-a');
    const pid = unrelatedProcess({ cwd: worktree, env: { FOREMAN_WORKER_ID: 'w9', PATH: process.env['PATH'] ?? '' } });
    const identity = identify(pid, worktree);
    assert.equal(identity.processGroup, pid);
    assert.equal(identity.cwd, worktree);
    assert.ok(identity.startTicks && identity.bootId, JSON.stringify(identity));

    assert.deepEqual(verifyAgent(pid, 'w9', identity), { ours: true, evidence: 'same start time and boot' });
    const verdicts: Array<[string, AgentIdentity | undefined, string, RegExp]> = [
      ['another worker', identity, 'w8', /no FOREMAN_WORKER_ID=w8 in its environment/],
      ['another start time', { ...identity, startTicks: String(Number(identity.startTicks) - 1) }, 'w9', /is another process now/],
      ['another boot', { ...identity, bootId: '00000000-0000-0000-0000-000000000000' }, 'w9', /restarted since the launch/],
      ['another worktree', { ...identity, cwd: folder('worktree-b') }, 'w9', /not in the worktree/],
    ];
    for (const [what, changed, worker, reason] of verdicts) {
      const verdict = verifyAgent(pid, worker, changed ?? {});
      assert.equal(verdict.ours, false, what);
      if (!verdict.ours) assert.match(verdict.reason, reason, what);
    }
  });

  it('trusts a record of an older version (pid only) only when the environment names the worker', () => {
    const marked = unrelatedProcess({ env: { FOREMAN_WORKER_ID: 'w9', PATH: process.env['PATH'] ?? '' } });
    assert.equal(verifyAgent(marked, 'w9', {}).ours, true);
    const plain = unrelatedProcess();
    const verdict = verifyAgent(plain, 'w9', {});
    assert.equal(verdict.ours, false);
    if (!verdict.ours) assert.match(verdict.reason, /no FOREMAN_WORKER_ID=w9/);
  });

  it('refuses a process that does not lead its own group', () => {
    const pid = unrelatedProcess({ detached: false, env: { FOREMAN_WORKER_ID: 'w9', PATH: process.env['PATH'] ?? '' } });
    const verdict = verifyAgent(pid, 'w9', {});
    assert.equal(verdict.ours, false);
    if (!verdict.ours) assert.match(verdict.reason, /no longer leads its own process group/);
    process.kill(pid, 'SIGKILL');
  });
});

describe('foreman serve and leftover agent records', { skip }, () => {
  it('leaves an unrelated process group alone, whatever its record says, and drops the records', { timeout: 60_000 }, async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    const pid = unrelatedProcess();
    const own = identify(pid, crew.worktreeOf('w1'));
    // The reproduction (a pid-only record, as older versions wrote), a reused pid (another
    // start time), and the exact process under a record that claims it (same start time) but whose
    // environment and cwd say otherwise.
    writeRecord(crew, 'w1', pid);
    writeRecord(crew, 'w2', pid, { ...own, startTicks: String(Number(own.startTicks) - 7) });
    writeRecord(crew, 'w3', pid, { ...own, cwd: crew.worktreeOf('w3') });
    const server = await crew.serve();
    try {
      const output = server.output();
      assert.match(
        output,
        new RegExp(`not stopping the orphaned agent of w1 \\(pid ${pid}, T1 attempt 1\\): pid ${pid} has no FOREMAN_WORKER_ID=w1`),
      );
      assert.match(
        output,
        new RegExp(`not stopping the orphaned agent of w2 \\(pid ${pid}, T1 attempt 1\\): pid ${pid} is another process now`),
      );
      assert.match(
        output,
        new RegExp(`not stopping the orphaned agent of w3 \\(pid ${pid}, T1 attempt 1\\): pid ${pid} has no FOREMAN_WORKER_ID=w3`),
      );
      assert.doesNotMatch(output, /agents: stopping/);
      await delay(500);
      assert.ok(processAlive(pid), 'the unrelated process survived serve start');
      for (const worker of ['w1', 'w2', 'w3'])
        assert.equal(existsSync(join(crew.root, '.foreman', 'agents', `${worker}.json`)), false, worker);
    } finally {
      await server.stop();
    }
    assert.ok(processAlive(pid), 'the unrelated process survived serve');
  });

  it('still stops a real agent orphaned by a killed serve, next to an unrelated recorded pid', { timeout: 60_000 }, async () => {
    const crew = await makeCrew({ workers: ['w1'] });
    // Long enough to outlive both owners on a loaded machine: the second serve is what stops it.
    await crew.addTask('orphan', 'Edit then think', 'write g.txt unsaved edit\nsleep 60000');
    const first = await crew.serve();
    await crew.waitForLog('orphan', 1, /sleep \d+ ms/);
    const record = crew.agentRecord('w1') as { pid: number; identity?: AgentIdentity; watchdog?: number } | undefined;
    assert.ok(record?.identity, `the record holds the agent's identity: ${JSON.stringify(record)}`);
    const agent = record.pid;
    assert.equal(record.identity.processGroup, agent);
    assert.equal(record.identity.cwd, realpathSync(crew.worktreeOf('w1')));
    assert.ok(record.identity.startTicks && record.identity.bootId);
    // Its watchdog (ownerWatch.ts) would stop it with serve: an orphan is left only when both die.
    assert.ok(record.watchdog, 'the record names the watchdog');
    process.kill(record.watchdog, 'SIGKILL');
    await first.kill();
    assert.ok(processAlive(agent), 'the agent outlives its owner and its watchdog');

    const unrelated = unrelatedProcess();
    writeRecord(crew, 'w2', unrelated);
    const second = await crew.serve();
    try {
      const output = second.output();
      assert.match(
        output,
        new RegExp(`agents: stopping the orphaned agent of w1 \\(pid ${agent}, orphan attempt 1\\): same start time and boot`),
      );
      assert.match(output, new RegExp(`not stopping the orphaned agent of w2 \\(pid ${unrelated}`));
      await pollUntil(() => !groupAlive(agent), { what: 'the orphaned agent to be stopped', timeoutMs: 5000 });
      assert.ok(processAlive(unrelated), 'the unrelated process was not');
    } finally {
      await second.stop();
    }
  });
});
