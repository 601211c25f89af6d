import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AgentSupervisor } from '../../../src/infra/agents/agentSupervisor';
import { demoAgentArgs, resolveProfile } from '../../../src/infra/agents/profiles';
import { pollUntil } from '../../support/pollUntil';
import { type FakeCli, fakeForemanCli, git, makeRepo, readText, tempDir } from './agentFixtures';

interface DemoOutcome {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the demo agent exactly as the demo profile launches it (same argv prefix), in `worktree`. */
function runDemo(worktree: string, prompt: string, cli: FakeCli, env: Record<string, string> = {}): Promise<DemoOutcome> {
  const promptFile = join(tempDir('prompt'), 'attempt-1.prompt.md');
  writeFileSync(promptFile, prompt);
  const prefix = demoAgentArgs();
  assert.ok(prefix, 'the demo agent script is found');
  const child = spawn(process.execPath, [...prefix, promptFile], {
    cwd: worktree,
    shell: false,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PATH: `${cli.binDir}:${process.env['PATH']}`,
      FOREMAN_WORKER_ID: 'w-1',
      FOREMAN_TASK_ID: 't-1',
      FOREMAN_ATTEMPT: '1',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

function subjects(repo: string, range: string): string[] {
  const log = git(repo, 'log', '--format=%s', range);
  return log === '' ? [] : log.split('\n');
}

describe('demo agent', () => {
  it('follows write, append, replace-line and commit directives, and heartbeats through the CLI', async () => {
    const repo = makeRepo();
    const cli = fakeForemanCli();
    const prompt = [
      'Implement the greeting.',
      'write src/hello.txt hello  world',
      'append src/hello.txt second line',
      'commit Add hello',
      'replace-line f.txt 1 changed base',
      'progress 0.5',
      'commit Change base',
      'exit the building (prose, not a directive)',
    ].join('\n');
    const outcome = await runDemo(repo, prompt, cli);
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.deepEqual(subjects(repo, 'HEAD'), ['Change base', 'Add hello', 'initial']);
    assert.equal(git(repo, 'show', 'HEAD~1:src/hello.txt'), 'hello  world\nsecond line');
    assert.equal(readFileSync(join(repo, 'f.txt'), 'utf8'), 'changed base\n');
    assert.equal(git(repo, 'status', '--porcelain'), '');
    assert.equal(git(repo, 'log', '-1', '--format=%an <%ae>'), 'Demo Agent <demo@foreman.invalid>');
    assert.match(outcome.stdout, /ignoring unreadable directive: exit the building/);

    const calls = cli.calls();
    const plain = { argv: ['heartbeat', 'w-1', '--attempt', '1'], workerId: 'w-1' };
    // An edit's heartbeat names the file, as Claude's and Codex's edit events do (the overlap check, docs/overlaps.md).
    const edited = (file: string) => ({
      argv: ['heartbeat', 'w-1', '--attempt', '1', '--activity', `Edit: ${file}`, '--touched', file],
      workerId: 'w-1',
    });
    // Start, then one after each directive; `progress` is itself the heartbeat after it.
    assert.deepEqual(calls, [
      plain,
      edited('src/hello.txt'),
      edited('src/hello.txt'),
      plain,
      edited('f.txt'),
      { argv: ['heartbeat', 'w-1', '--progress', '0.5', '--attempt', '1'], workerId: 'w-1' },
      plain,
    ]);
  });

  it('with no directives, writes demo/<task>.md and commits it', async () => {
    const repo = makeRepo();
    const outcome = await runDemo(repo, '\nMake the login page friendlier\n\nDetails follow.\n', fakeForemanCli());
    assert.equal(outcome.code, 0, outcome.stderr);
    assert.equal(git(repo, 'show', 'HEAD:demo/t-1.md'), '# t-1\n\nMake the login page friendlier');
    assert.deepEqual(subjects(repo, 'HEAD'), ['demo: t-1', 'initial']);
  });

  it('fail exits 1 with the reason; exit uses the given code; heartbeat failures do not stop it', async () => {
    const repo = makeRepo();
    const failed = await runDemo(repo, 'write a.txt partial\nfail the tests do not pass\ncommit never', fakeForemanCli());
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /failed: the tests do not pass/);
    assert.deepEqual(subjects(repo, 'HEAD'), ['initial']);

    const brokenCli = fakeForemanCli();
    writeFileSync(join(brokenCli.binDir, 'foreman'), `#!${process.execPath}\nprocess.exit(9);\n`);
    const exited = await runDemo(repo, 'exit 7', brokenCli);
    assert.equal(exited.code, 7);
    assert.match(exited.stdout, /heartbeat failed \(exit 9\)/);
  });

  it('refuses to write outside its worktree', async () => {
    const repo = makeRepo();
    const outcome = await runDemo(repo, 'write ../outside.txt escaped', fakeForemanCli());
    assert.equal(outcome.code, 1);
    assert.match(outcome.stderr, /refusing to write '\.\.\/outside\.txt'/);
    assert.equal(existsSync(join(repo, '..', 'outside.txt')), false);
  });

  it('crash dies by SIGKILL and leaves its uncommitted edit in place', async () => {
    const repo = makeRepo();
    const outcome = await runDemo(repo, 'write work.txt half done\ncrash\ncommit never', fakeForemanCli());
    assert.deepEqual([outcome.code, outcome.signal], [null, 'SIGKILL']);
    assert.equal(readFileSync(join(repo, 'work.txt'), 'utf8'), 'half done\n');
    assert.equal(git(repo, 'status', '--porcelain'), '?? work.txt');
    assert.deepEqual(subjects(repo, 'HEAD'), ['initial']);
  });

  it('on a merge conflict, rebases onto the base keeping both sides and does not redo finished work', async () => {
    const repo = makeRepo();
    const worktree = join(repo, '..', 'worktree');
    git(repo, 'worktree', 'add', '--quiet', '-b', 'w-1/t-1', worktree);
    const cli = fakeForemanCli();
    const task = 'replace-line f.txt 1 from branch\nappend notes.txt one note\ncommit Branch change';
    const firstRun = await runDemo(worktree, task, cli, { FOREMAN_BASE: 'main' });
    assert.equal(firstRun.code, 0, firstRun.stderr);

    // Meanwhile the base moved on the same line: the merge conflicts and the engine relaunches with a note.
    writeFileSync(join(repo, 'f.txt'), 'from main\n');
    git(repo, 'commit', '--quiet', '-am', 'Main change');
    const relaunch = await runDemo(worktree, `${task}\n\nMerge conflict in: f.txt\n`, cli, { FOREMAN_BASE: 'main' });
    assert.equal(relaunch.code, 0, relaunch.stderr);
    assert.match(relaunch.stdout, /conflict in f\.txt: kept both sides/);
    assert.match(relaunch.stdout, /skipping 3 directive\(s\) already done/);

    assert.equal(git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD'), 'w-1/t-1');
    git(worktree, 'merge-base', '--is-ancestor', 'main', 'HEAD'); // throws unless rebased onto main
    assert.deepEqual(subjects(worktree, 'main..HEAD'), ['Branch change']);
    assert.equal(readFileSync(join(worktree, 'f.txt'), 'utf8'), 'from main\nfrom branch\n');
    assert.equal(readFileSync(join(worktree, 'notes.txt'), 'utf8'), 'one note\n', 'the append was not repeated');
    assert.equal(git(worktree, 'status', '--porcelain'), '');
    assert.equal(readFileSync(join(repo, 'f.txt'), 'utf8'), 'from main\n', 'the main checkout is untouched');
  });

  it('runs under the supervisor with the demo profile: hang keeps heartbeating, silent does not', async () => {
    const cli = fakeForemanCli();
    const supervisor = new AgentSupervisor({ logDir: tempDir('logs'), cliBinDir: cli.binDir, graceMs: 1000 });
    after(() => supervisor.dispose());
    const profile = resolveProfile('demo');
    assert.ok(profile.ok);
    const launch = (workerId: string, prompt: string) => {
      const result = supervisor.launch({
        workerId,
        taskId: `t-${workerId}`,
        attempt: 1,
        branch: `${workerId}/t`,
        worktree: makeRepo(),
        prompt,
        profile: profile.value,
      });
      assert.ok(result.ok, result.ok ? '' : result.message);
      return result.value;
    };
    const hanging = launch('hanger', 'hang');
    const silent = launch('quiet', 'silent');
    const beatsOf = (workerId: string) => cli.calls().filter((call) => call.workerId === workerId).length;
    // The start heartbeat, then one every 2 s while hanging.
    await pollUntil(() => beatsOf('hanger') >= 3, {
      what: 'a heartbeat from the hanging agent after its start',
      timeoutMs: 8000,
      intervalMs: 20,
    });
    assert.equal(beatsOf('quiet'), 1, 'the silent agent sent only its start heartbeat');
    assert.match(readText(silent.logFile), /going silent/);
    assert.ok(supervisor.signals('quiet')?.alive, 'silent is not dead');

    const [hangExit, silentExit] = await Promise.all([supervisor.cancel('hanger'), supervisor.cancel('quiet')]);
    assert.match(hangExit!.reason, new RegExp(`^pid ${hanging.pid} stopped by SIGTERM on cancel`));
    assert.match(silentExit!.reason, new RegExp(`^pid ${silent.pid} stopped by SIGTERM on cancel`));
  });
});
