import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AgentSupervisor, type AgentLaunchSpec, type AgentRun } from '../../../src/infra/agents/agentSupervisor';
import { isAlive } from '../../../src/infra/agents/processes';
import type { AgentProfile } from '../../../src/infra/agents/profiles';
import { ManualClock } from '../../support/manualClock';
import { pollUntil } from '../../support/pollUntil';
import { fakeForemanCli, readText, scriptProfile, tempDir } from './agentFixtures';

const clockTime = /\d\d:\d\d:\d\d$/;

/** A failed assertion must not leave agents running: every supervisor is disposed at the end. */
const supervisors: AgentSupervisor[] = [];
after(() => Promise.all(supervisors.map((supervisor) => supervisor.dispose())));

function setup(options: { graceMs?: number; heartbeatEveryMs?: number; clock?: ManualClock } = {}) {
  const cli = fakeForemanCli();
  const logDir = tempDir('logs');
  const worktree = tempDir('worktree');
  const heartbeats: AgentRun[] = [];
  const exits: string[] = [];
  const supervisor = new AgentSupervisor({
    logDir,
    cliBinDir: cli.binDir,
    ...options,
    onHeartbeat: (run) => heartbeats.push(run),
    onExit: (_run, outcome) => exits.push(outcome.reason),
  });
  supervisors.push(supervisor);
  const spec = (profile: AgentProfile, overrides: Partial<AgentLaunchSpec> = {}): AgentLaunchSpec => ({
    workerId: 'w-1',
    taskId: 't-1',
    attempt: 1,
    branch: 'w-1/t-1',
    worktree,
    prompt: 'do the thing',
    profile,
    ...overrides,
  });
  return { cli, logDir, worktree, heartbeats, exits, supervisor, spec };
}

function launched(result: ReturnType<AgentSupervisor['launch']>): AgentRun {
  assert.ok(result.ok, result.ok ? '' : `${result.code}: ${result.message}`);
  return result.value;
}

describe('AgentSupervisor', () => {
  it('runs the agent in its worktree with the FOREMAN environment, the CLI first on PATH, and logs its output', async () => {
    const { cli, logDir, worktree, supervisor, spec, exits } = setup();
    rmSync('/tmp/pwned-agents', { force: true });
    const profile = scriptProfile(
      `const { spawnSync } = require('node:child_process');
       console.log('argv=' + JSON.stringify(process.argv.slice(2)));
       console.log('cwd=' + process.cwd());
       for (const key of ['FOREMAN_WORKER_ID', 'FOREMAN_TASK_ID', 'FOREMAN_ATTEMPT', 'FOREMAN_BRANCH', 'FOREMAN_ENDPOINT', 'GIT_DIR', 'PATH']) console.log(key + '=' + process.env[key]);
       console.log('foreman exit=' + spawnSync('foreman', ['ping', '--from-agent'], { encoding: 'utf8' }).status);
       console.error('this went to stderr');`,
      ['{prompt}', 'task={taskId} worker={workerId}', '{attempt}', '{branch}', '{worktree}'],
    );
    // Everything a shell would act on: spaces, quotes, substitution, chaining, a glob, a placeholder-like word.
    const prompt = `fix the "login" page; $(touch /tmp/pwned-agents) && \`touch /tmp/pwned-agents\` * {taskId}`;
    // An inherited GIT_DIR (Foreman started from a git hook) would send the agent's commits elsewhere.
    process.env['GIT_DIR'] = '/somewhere/else/.git';
    const run = launched(supervisor.launch(spec(profile, { prompt, env: { FOREMAN_ENDPOINT: '/tmp/socket' } })));
    delete process.env['GIT_DIR'];
    assert.equal(run.logFile, join(logDir, 't-1', 'attempt-1.log'));
    const exit = await run.exited;

    assert.equal(exit.code, 0);
    assert.equal(exit.signal, null);
    assert.match(exit.reason, new RegExp(`^pid ${run.pid} exited 0 at `));
    assert.match(exit.reason, clockTime);
    assert.deepEqual(exits, [exit.reason]);

    const log = readText(run.logFile);
    const [header] = log.split('\n');
    assert.match(header!, /^# foreman \d{4}-\d\d-\d\dT.*Z launch argv=\[.*\] cwd=".*"$/);
    assert.ok(header!.includes(JSON.stringify(worktree)), 'the header names the cwd');
    assert.ok(header!.includes(JSON.stringify(prompt).slice(1, -1)), 'the header holds the argv as JSON');
    const printed = (key: string): string =>
      log
        .split('\n')
        .find((line) => line.startsWith(`${key}=`))!
        .slice(key.length + 1);
    assert.deepEqual(JSON.parse(printed('argv')), [prompt, 'task=t-1 worker=w-1', '1', 'w-1/t-1', worktree]);
    assert.equal(printed('cwd'), worktree);
    assert.equal(printed('FOREMAN_WORKER_ID'), 'w-1');
    assert.equal(printed('FOREMAN_TASK_ID'), 't-1');
    assert.equal(printed('FOREMAN_ATTEMPT'), '1');
    assert.equal(printed('FOREMAN_BRANCH'), 'w-1/t-1');
    assert.equal(printed('FOREMAN_ENDPOINT'), '/tmp/socket');
    assert.equal(printed('GIT_DIR'), 'undefined');
    assert.ok(printed('PATH').startsWith(`${cli.binDir}:`), 'the CLI folder comes first on PATH');
    assert.equal(printed('foreman exit'), '0');
    assert.deepEqual(cli.calls(), [{ argv: ['ping', '--from-agent'], workerId: 'w-1' }]);
    assert.match(log, /this went to stderr/);
    assert.ok(log.trimEnd().endsWith(exit.reason), 'the log closes with the exit reason');
    assert.equal(existsSync('/tmp/pwned-agents'), false, 'nothing ever went through a shell');

    assert.ok(run.lastOutputAt !== undefined && run.lastOutputAt >= run.startedAt - 1000);
    assert.deepEqual(supervisor.signals('w-1'), { alive: false, pid: run.pid, lastOutputAt: run.lastOutputAt, exitedReason: exit.reason });
    assert.equal(supervisor.running('w-1'), undefined);
  });

  it('hands the prompt over stdin or as a prompt file', async () => {
    const { supervisor, spec, logDir } = setup();
    const echo = `let text = ''; process.stdin.on('data', (chunk) => (text += chunk)).on('end', () => console.log('stdin<' + text + '>'));`;
    const viaStdin = launched(supervisor.launch(spec(scriptProfile(echo, [], { prompt: 'stdin' }), { prompt: 'line one\nline two' })));
    await viaStdin.exited;
    assert.match(readText(viaStdin.logFile), /stdin<line one\nline two>/);

    const show = `console.log('file<' + require('node:fs').readFileSync(process.argv[2], 'utf8') + '>');`;
    const viaFile = launched(
      supervisor.launch(spec(scriptProfile(show, ['{promptFile}']), { workerId: 'w-2', taskId: 't-2', attempt: 3, prompt: 'from a file' })),
    );
    assert.equal((await viaFile.exited).code, 0);
    assert.equal(readText(join(logDir, 't-2', 'attempt-3.prompt.md')), 'from a file');
    assert.match(readText(join(logDir, 't-2', 'attempt-3.log')), /file<from a file>/);
  });

  it('heartbeats for the agent on its clock while its process lives, and stops when it exits', async () => {
    const clock = new ManualClock();
    const { supervisor, spec, heartbeats } = setup({ heartbeatEveryMs: 100, clock });
    const run = launched(supervisor.launch(spec(scriptProfile(`setTimeout(() => undefined, 60_000);`))));
    assert.equal(heartbeats.length, 1, 'the start heartbeat');
    clock.advance(99);
    assert.equal(heartbeats.length, 1);
    clock.advance(1);
    clock.advance(300);
    assert.equal(heartbeats.length, 5, 'one more per period the process lives');
    assert.deepEqual(supervisor.signals('w-1'), { alive: true, pid: run.pid });
    assert.ok(heartbeats.every((beat) => beat === run));
    process.kill(run.pid, 'SIGTERM');
    await run.exited;
    clock.advance(1_000);
    assert.equal(heartbeats.length, 5, 'no heartbeat after the process exited');
  });

  it('logs a heartbeat or exit callback that throws or rejects, and keeps supervising', async () => {
    const lines: string[] = [];
    const supervisor = new AgentSupervisor({
      logDir: tempDir('logs'),
      cliBinDir: fakeForemanCli().binDir,
      heartbeatEveryMs: 50,
      log: (line) => lines.push(line),
      onHeartbeat: () => Promise.reject(new Error('store is closed')),
      onExit: () => {
        throw new Error('engine is gone');
      },
    });
    supervisors.push(supervisor);
    const run = launched(
      supervisor.launch({
        workerId: 'w-1',
        taskId: 't-1',
        attempt: 1,
        branch: 'b',
        worktree: tempDir('worktree'),
        prompt: 'p',
        profile: scriptProfile(`setTimeout(() => undefined, 300);`),
      }),
    );
    assert.equal((await run.exited).code, 0);
    assert.ok(lines.some((line) => /heartbeat for w-1 failed: Error: store is closed/.test(line)));
    assert.ok(lines.some((line) => /onExit for w-1 failed: Error: engine is gone/.test(line)));
  });

  it('cancel sends SIGTERM to the whole process group, grandchildren included', async () => {
    const { supervisor, spec } = setup();
    const profile = scriptProfile(
      `const child = require('node:child_process').spawn('sleep', ['1000'], { stdio: 'ignore' });
       console.log('grandchild=' + child.pid);
       setInterval(() => undefined, 1000);`,
    );
    const run = launched(supervisor.launch(spec(profile)));
    const grandchild = await pollUntil(() => Number(/grandchild=(\d+)/.exec(readText(run.logFile))?.[1]) || undefined, {
      what: 'the grandchild pid',
      intervalMs: 20,
    });
    assert.ok(isAlive(run.pid) && isAlive(grandchild));

    const exit = await supervisor.cancel('w-1');
    assert.ok(exit);
    assert.equal(exit.signal, 'SIGTERM');
    assert.match(exit.reason, new RegExp(`^pid ${run.pid} stopped by SIGTERM on cancel at `));
    assert.equal(isAlive(run.pid), false);
    assert.equal(isAlive(grandchild), false, 'the grandchild went with the group');
    assert.equal(await supervisor.cancel('w-1'), undefined, 'nothing left to cancel');
  });

  it('cancel sends SIGKILL after the grace period to a process that ignores SIGTERM', async () => {
    const { supervisor, spec } = setup({ graceMs: 300 });
    const profile = scriptProfile(
      `process.on('SIGTERM', () => console.log('ignoring SIGTERM')); console.log('ready'); setInterval(() => undefined, 1000);`,
    );
    const run = launched(supervisor.launch(spec(profile)));
    await pollUntil(() => readText(run.logFile).includes('ready'), { what: 'the agent to install its handler', intervalMs: 20 });
    const started = Date.now();
    const [first, second] = await Promise.all([supervisor.cancel('w-1'), supervisor.cancel('w-1')]);
    assert.ok(Date.now() - started >= 280, 'it waited for the grace period');
    assert.equal(first, second, 'concurrent cancels share one outcome');
    assert.ok(first);
    assert.equal(first.signal, 'SIGKILL');
    assert.match(first.reason, new RegExp(`^pid ${run.pid} ignored SIGTERM for 300 ms and was killed by SIGKILL on cancel at `));
    assert.match(readText(run.logFile), /ignoring SIGTERM/);
    assert.equal(isAlive(run.pid), false);
  });

  it('reports exits in words: exit codes and signals', async () => {
    const { supervisor, spec } = setup();
    const failing = launched(supervisor.launch(spec(scriptProfile(`process.exit(3);`))));
    const failed = await failing.exited;
    assert.equal(failed.code, 3);
    assert.match(failed.reason, new RegExp(`^pid ${failing.pid} exited 3 at \\d\\d:\\d\\d:\\d\\d$`));

    const killed = launched(supervisor.launch(spec(scriptProfile(`process.kill(process.pid, 'SIGKILL');`))));
    const outcome = await killed.exited;
    assert.deepEqual([outcome.code, outcome.signal], [null, 'SIGKILL']);
    assert.match(outcome.reason, new RegExp(`^pid ${killed.pid} was killed by SIGKILL at `));
    assert.equal(supervisor.signals('w-1')?.exitedReason, outcome.reason);
    assert.equal(supervisor.signals('w-9'), undefined);
  });

  it('refuses a second run for a busy worker and launches that cannot work, before creating anything', async () => {
    const { supervisor, spec, logDir, worktree } = setup();
    const run = launched(supervisor.launch(spec(scriptProfile(`setInterval(() => undefined, 1000);`))));
    const again = supervisor.launch(spec(scriptProfile(`console.log('second');`)));
    assert.ok(!again.ok);
    assert.equal(again.code, 'agentAlreadyRunning');
    assert.deepEqual(supervisor.runs(), [run]);
    assert.equal(supervisor.running('w-1'), run);

    const other = (profile: AgentProfile, overrides: Partial<AgentLaunchSpec> = {}) =>
      supervisor.launch(spec(profile, { workerId: 'w-2', taskId: 't-2', ...overrides }));
    const plain = scriptProfile(`console.log('never');`);
    const expectFailure = (result: ReturnType<AgentSupervisor['launch']>, kind: string, code: string): void => {
      assert.ok(!result.ok, `expected ${code}`);
      assert.deepEqual([result.kind, result.code], [kind, code]);
    };
    const unknownPlaceholder = other({ ...plain, args: [...plain.args, 'at {cwd}'] });
    expectFailure(unknownPlaceholder, 'invalid', 'unknownPlaceholder');
    assert.match(unknownPlaceholder.ok ? '' : unknownPlaceholder.message, /\{cwd\}/);
    expectFailure(other({ ...plain, command: 'no-such-agent-command' }), 'refused', 'agentCommandNotFound');
    expectFailure(other({ ...plain, mode: 'terminal' }), 'refused', 'terminalProfile');
    expectFailure(other(plain, { worktree: join(worktree, 'missing') }), 'refused', 'worktreeMissing');
    expectFailure(other(plain, { taskId: '../escape' }), 'invalid', 'invalidTaskId');
    expectFailure(other(plain, { attempt: 0 }), 'invalid', 'invalidAttempt');
    assert.equal(existsSync(join(logDir, 't-2')), false, 'no log or prompt file for a refused launch');

    await supervisor.dispose();
    assert.equal(isAlive(run.pid), false, 'dispose cancels what runs');
    expectFailure(supervisor.launch(spec(plain)), 'refused', 'supervisorDisposed');
  });
});
